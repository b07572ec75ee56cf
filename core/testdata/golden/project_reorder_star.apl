// a first, b last, the rest between in their order.
logs | project-reorder method, *, uri, ["geo.*"] desc | getschema | project ColumnName
