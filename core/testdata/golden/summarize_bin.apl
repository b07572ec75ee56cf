logs | summarize count(), sum(resp_body_size_bytes) by bin(_time, 30m)
