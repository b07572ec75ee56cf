logs | summarize maxif(is_tls, status == 200)
