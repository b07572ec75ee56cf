logs | where status == "500" | count
