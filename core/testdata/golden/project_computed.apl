logs | project _time, uri, kb = resp_body_size_bytes / 1024.0 | sort by _time asc | take 5
