logs | where method in (nosuch, "GET")
