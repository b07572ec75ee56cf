logs | summarize n = count(), avg(req_duration_ms), max(resp_body_size_bytes) by method, server_datacenter | sort by method asc, server_datacenter asc
