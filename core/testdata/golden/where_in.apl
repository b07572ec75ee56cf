logs | where method in ("PUT", "DELETE") | summarize count() by method
