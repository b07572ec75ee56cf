package core

import "testing"

const lookupData = `let Events = datatable(svc:string, ms:long)['web',10, 'db',20, 'cache',5, 'web',30];
let Names = datatable(svc:string, title:string, ms:long)['web','Frontend',1, 'db','Database',2];
`

func TestLookup(t *testing.T) {
	t.Run("leftouter by default, key not repeated", func(t *testing.T) {
		opsExpect(t, lookupData+"Events | lookup Names on svc", "svc:string, ms:integer, title:string, ms1:integer",
			`["web",10,"Frontend",1]`, `["db",20,"Database",2]`, `["cache",5,null,null]`, `["web",30,"Frontend",1]`)
	})
	t.Run("inner", func(t *testing.T) {
		opsExpect(t, lookupData+"Events | lookup kind=inner Names on svc | project svc, title", "svc:string, title:string",
			`["web","Frontend"]`, `["db","Database"]`, `["web","Frontend"]`)
	})
	t.Run("different key names", func(t *testing.T) {
		opsExpect(t, lookupData+"Events | lookup (Names | project-rename name = svc) on $left.svc == $right.name | project svc, title",
			"svc:string, title:string",
			`["web","Frontend"]`, `["db","Database"]`, `["cache",null]`, `["web","Frontend"]`)
	})
	t.Run("flattened field on the left", func(t *testing.T) {
		opsExpect(t, `datatable(['service.name']:string)['db', 'x'] | lookup (datatable(n:string, t:string)['db','Database']) on $left.service.name == $right.n`,
			"service.name:string, t:string", `["db","Database"]`, `["x",null]`)
	})
	t.Run("bad kind", func(t *testing.T) {
		opsExpectError(t, lookupData+"Events | lookup kind=fullouter Names on svc", 0, 0, "lookup kind")
	})
	t.Run("type mismatch", func(t *testing.T) {
		opsExpectError(t, lookupData+"Events | lookup Names on $left.ms == $right.title", 3, 26, "compares long (left) with string (right)")
	})
}
