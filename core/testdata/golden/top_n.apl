logs | top 5 by resp_body_size_bytes desc | project resp_body_size_bytes, uri
