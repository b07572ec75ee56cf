package core

import "testing"

func TestRedact(t *testing.T) {
	cases := []struct {
		name, q, cols string
		rows          []string
	}{
		{"token per character on chosen fields", `datatable(city:string, country:string, n:long)['Paris', 'FR', 1] | redact replaceToken="x" @'.*' on city`,
			"city:string, country:string, n:integer", []string{`["xxxxx","FR",1]`}},
		{"default token on every string field", `datatable(a:string, b:string, n:long)['card 4111-1111 ok', 'id 42', 7] | redact @'\d+'`,
			"a:string, b:string, n:integer", []string{`["card ****-**** ok","id **",7]`}},
		{"a longer token replaces the whole match", `datatable(a:string)['mail bob@x.io now'] | redact replaceToken='<email>' @'\S+@\S+'`,
			"a:string", []string{`["mail <email> now"]`}},
		{"hash", `datatable(a:string)['1', 'k=1;'] | redact replaceHash=true @'1'`,
			"a:string", []string{`["c4ca4238a0b923820dcc509a6f75849b"]`, `["k=c4ca4238a0b923820dcc509a6f75849b;"]`}},
		{"groups only", `datatable(uri:string)['/api/v1/pub/sub', '/x'] | redact replaceToken="." redactGroups=true @'.*/(.*)' on uri`,
			"uri:string", []string{`["/api/v1/pub/..."]`, `["/."]`}},
		{"several patterns in order, unicode", `datatable(a:string)['名前 ana 12'] | redact @'\d', @'ana'`,
			"a:string", []string{`["名前 *** **"]`}},
		{"null and no match stay", `datatable(a:string)['', 'plain'] | extend a = iff(a == '', a, a) | redact @'\d+'`,
			"a:string", []string{`[""]`, `["plain"]`}},
		{"dynamic array of patterns", `datatable(a:string)['a1b2'] | redact dynamic(['a', 'b'])`,
			"a:string", []string{`["*1*2"]`}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) { opsExpect(t, c.q, c.cols, c.rows...) })
	}
}

func TestRedactErrors(t *testing.T) {
	q := `datatable(a:string, n:long)['x', 1] | redact `
	opsExpectError(t, q+`@'(' on a`, 1, 46, "not a valid regular expression")
	opsExpectError(t, q+`@'x' on n`, 1, 54, "applies to string fields")
	opsExpectError(t, q+`@'x' on nope`, 1, 54, `unknown field or variable "nope"`)
	opsExpectError(t, q+`replaceToken=1 @'x'`, 1, 59, "replaceToken must be a constant string")
	opsExpectError(t, q+`replaceHash='yes' @'x'`, 1, 58, "replaceHash must be a constant bool")
	opsExpectError(t, q+`a`, 1, 46, "constant regular expressions")
}
