logs | where isnull(['geo.city']) | count
