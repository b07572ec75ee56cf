datatable(a:long, b:string, c:real) [1, "x", 1.5, 2, "y", 2.5, 3, "x", -1.0] | summarize sum(c) by b
