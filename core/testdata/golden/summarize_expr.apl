logs | summarize errors = 100.0 * countif(status >= 500) / count() by method | sort by method asc
