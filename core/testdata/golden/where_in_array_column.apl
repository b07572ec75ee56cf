// The list reads a column: each row's tags array (flattened), plus a constant.
logs
| extend t = "a"
| summarize in_tags = countif(t in (tags)), in_tags_or_z = countif("z" in (tags, "z")),
    not_in = countif("a" !in (tags)), ci = countif("A" in~ (tags)), any_term = countif("d" has_any (tags)),
    nested = countif(status in (dynamic([200, [404, [503]]]))), arrays = countif(isnotnull(tags))
