logs | where nosuchfield == 1
