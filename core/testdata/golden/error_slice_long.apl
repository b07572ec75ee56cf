logs | extend x = resp_body_size_bytes[1:]
