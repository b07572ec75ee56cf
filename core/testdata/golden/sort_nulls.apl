logs | project c = ['geo.city'] | distinct c | sort by c asc
