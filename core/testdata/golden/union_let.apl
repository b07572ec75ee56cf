let A = datatable(x:long) [1, 2]; let B = datatable(x:long, y:string) [3, "z"]; A | union B | sort by x asc
