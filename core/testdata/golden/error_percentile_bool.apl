logs | summarize percentile(is_tls, 50)
