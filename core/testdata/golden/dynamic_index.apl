logs | where isnotnull(tags) | project n = array_length(tags), first = tags[0] | summarize count() by n
