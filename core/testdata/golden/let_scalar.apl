let limit = 4000; let m = "GET"; logs | where resp_body_size_bytes > limit and method == m | count
