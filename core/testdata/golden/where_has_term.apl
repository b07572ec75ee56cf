logs | where message has "foo" | project message | take 3
