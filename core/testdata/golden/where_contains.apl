logs | where uri contains "API" and uri !startswith "/api/v2" | summarize count() by uri
