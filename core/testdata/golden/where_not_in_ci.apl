logs | where method !in~ ("get", "post") | summarize count() by method
