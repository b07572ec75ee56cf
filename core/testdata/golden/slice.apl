// Slices of arrays and strings; the end is exclusive, negative bounds count from the end.
logs
| where array_length(tags) >= 2
| summarize by t = tostring(tags), uri
| sort by t asc, uri asc
| take 3
| extend d = todynamic(t)
| extend a = d[1:], b = d[:1], c = d[-2:-1], u = uri[-2:], v = uri[:4], w = uri[100:]
