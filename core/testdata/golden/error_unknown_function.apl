logs | extend x = nosuchfn(status)
