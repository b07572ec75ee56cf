print a = 1 | extend-valid a = 0, b = 2
