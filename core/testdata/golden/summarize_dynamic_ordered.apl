// status arrives as 200 and as "200": a dynamic field read as numbers.
logs
| summarize min(status), max(status), minif(status, is_tls), maxif(status, is_tls),
    percentile(status, 50), percentiles_array(status, 10, 90), histogram(status, 3),
    arg_max(status, method), arg_min(status, method), avg(status)
    by method
| sort by method asc
