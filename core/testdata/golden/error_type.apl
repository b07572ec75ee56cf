logs | where uri + 1 > 2
