// dynamic(x) of one computed value is a dynamic column, like the
// literal dynamic(1) and the built ones dynamic([x]).
datatable(a:long)[1, 2]
| project d = dynamic(a), e = dynamic(1 + 2), f = dynamic([a])
| getschema
