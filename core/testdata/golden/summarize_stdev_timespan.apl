// stdev keeps the timespan type; variance is real (ns squared).
datatable(d:timespan, k:string)[1s, "a", 3s, "a", 250ms, "b"]
| summarize stdev(d), variance(d), stdevif(d, d > 1s), varianceif(d, true) by k
| sort by k asc
