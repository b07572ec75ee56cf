logs | project-keep geo* | getschema
