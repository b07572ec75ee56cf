logs | project-away _sysTime, id, message, tags, ['geo.*'] | take 0
