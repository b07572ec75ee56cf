logs
| extend ua = ensure_field("user_agent", typeof(string)), s = ensure_field("status", typeof(long)), m = ensure_field("method", typeof(string))
| summarize count(), countif(isnull(ua)), sum(s), types = make_set(gettype(s)) by m
| sort by m asc
