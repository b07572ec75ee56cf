print a = 1h + 30m, b = 1d / 1h, c = datetime(2024-01-02) - datetime(2024-01-01), d = -5m
