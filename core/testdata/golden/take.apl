logs | sort by _time asc | take 3 | project _time, method
