logs | extend x = strlen(uri, 2)
