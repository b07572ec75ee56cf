logs | project-rename city = ['geo.city'] | summarize count() by city
