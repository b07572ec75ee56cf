logs | summarize countif(is_tls), sumif(resp_body_size_bytes, method == "GET"), avgif(req_duration_ms, status == 200)
