logs | summarize dcount(uri), percentile(req_duration_ms, 50), make_set(method), min(_time), max(_time), stdev(req_duration_ms), variance(resp_body_size_bytes)
