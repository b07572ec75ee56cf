logs | where status = = 500
