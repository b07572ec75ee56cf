logs | summarize arg_max(resp_body_size_bytes, uri, method) by server_datacenter | sort by server_datacenter asc
