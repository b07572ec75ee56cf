logs | summarize count() by uri | top 3 by count_
