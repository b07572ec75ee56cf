logs | extend d2 = req_duration_ms * 2, big = resp_body_size_bytes > 4000 | summarize sum(d2), countif(big)
