logs | where uri matches regex @"^/api/v[12]/b" | summarize count() by uri
