let T = datatable(k:string, v:long) ["GET", 1, "POST", 2]; T | where v > 1
