set stricttypes;
logs | where status == "500" | count
