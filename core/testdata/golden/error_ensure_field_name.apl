logs | extend x = ensure_field(method, typeof(string))
