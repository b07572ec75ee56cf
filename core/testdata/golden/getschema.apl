logs | getschema
