// Commas may separate the pattern items.
logs | parse-where uri with "/api/v1/", area, "/" rest | summarize count() by area | sort by area asc
