logs | project-reorder uri, method | getschema
