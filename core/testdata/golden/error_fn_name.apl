logs | extend x = substring(uri, "a")
