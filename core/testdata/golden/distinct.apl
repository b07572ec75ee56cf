logs | distinct method, server_datacenter | sort by method asc, server_datacenter asc
