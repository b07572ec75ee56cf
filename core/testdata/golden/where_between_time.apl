logs | where _time between (datetime(2024-03-26T12:00:00Z) .. datetime(2024-03-26T12:30:00Z)) | count
