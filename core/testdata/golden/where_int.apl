logs | where status == 500 | project _time, status, uri | sort by _time asc
