logs | count
