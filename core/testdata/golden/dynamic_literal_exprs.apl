// dynamic(...) elements may be expressions.
logs
| summarize by uri
| sort by uri asc
| take 2
| extend d = dynamic({'path': uri, 'n': [0.5 * pi(), 100ms, {'k': strlen(uri)}]})
