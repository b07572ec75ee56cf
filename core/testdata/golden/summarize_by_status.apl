logs | summarize count() by tostring(status) | sort by count_ desc, status asc
