print a = 1 + 2, b = strcat("x", "y"), c = 10s * 3, d = datetime(2024-01-01) + 1d
