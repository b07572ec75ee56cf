logs | where count() > 1
