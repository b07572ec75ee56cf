logs | summarize count() by bin(_time, 1h), method
