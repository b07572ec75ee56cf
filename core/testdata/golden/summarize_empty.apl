logs | where status == 999 | summarize count(), sum(resp_body_size_bytes)
