package core

import "testing"

func TestParseKv(t *testing.T) {
	cases := []struct {
		name, q, cols string
		rows          []string
	}{
		{"delimiters", `print str="ThreadId:458745723, Machine:Node001, Text: The service is up, Level: Info" | parse-kv str as (Text: string, ThreadId:long, Machine: string) with (pair_delimiter=',', kv_delimiter=':') | project-away str`,
			"Text:string, ThreadId:integer, Machine:string", []string{`["The service is up",458745723,"Node001"]`}},
		{"quoted values and keys", `print str='src=10.1.1.123 dst=10.1.1.124 bytes=125 failure="connection aborted" "event time"=2021-01-01T10:00:54' | parse-kv str as (['event time']:datetime, src:string, bytes:long, failure:string) with (pair_delimiter=' ', kv_delimiter='=', quote='"') | project-away str`,
			"event time:datetime, src:string, bytes:integer, failure:string", []string{`["2021-01-01T10:00:54Z","10.1.1.123",125,"connection aborted"]`}},
		{"open and close quotes", `print str='src=1 failure=(connection aborted) (event time)=(2021-01-01 10:00:54)' | parse-kv str as (['event time']:datetime, failure:string) with (pair_delimiter=' ', kv_delimiter='=', quote='()') | project-away str`,
			"event time:datetime, failure:string", []string{`["2021-01-01T10:00:54Z","connection aborted"]`}},
		{"escaped quotes", `print str='failure="the host sent \\"bye!\\"" time=x' | parse-kv str as (failure:string, time:string) with (pair_delimiter=' ', kv_delimiter='=', quote='"', escape='\\') | project-away str`,
			"failure:string, time:string", []string{`["the host sent \"bye!\"","x"]`}},
		{"not greedy", `print str='name=John Doe phone=555 5555 city=New York' | parse-kv str as (name:string, phone:string, city:string) with (pair_delimiter=' ', kv_delimiter='=') | project-away str`,
			"name:string, phone:string, city:string", []string{`["John","555","New"]`}},
		{"greedy", `print str='name=John Doe phone=555 5555 city=New York' | parse-kv str as (name:string, phone:string, city:string) with (pair_delimiter=' ', kv_delimiter='=', greedy=true) | project-away str`,
			"name:string, phone:string, city:string", []string{`["John Doe","555 5555","New York"]`}},
		{"no delimiters", `print str="2021-01-01T10:00:34 [INFO] ThreadId:458745723, Machine:Node001, Text: Started" | parse-kv str as (Text: string, ThreadId:long, Machine: string) | project-away str`,
			"Text:string, ThreadId:integer, Machine:string", []string{`["Started",458745723,"Node001"]`}},
		{"no delimiters with quotes", `print str="ThreadId:458745723, Text: 'The service \\' is up'" | parse-kv str as (Text: string, ThreadId:long) with (quote="'", escape='\\') | project-away str`,
			"Text:string, ThreadId:integer", []string{`["The service ' is up",458745723]`}},
		{"regex", `print str=@'["referer url: https://host/x?h=1", "request url: https://host/?h=2"]' | parse-kv str as (['referer url']:string, ['request url']:string) with (regex=@'"([\w ]+)\s*:\s*([^"]*)"') | project-away str`,
			"referer url:string, request url:string", []string{`["https://host/x?h=1","https://host/?h=2"]`}},
		{"missing key, first occurrence, bad type", `datatable(s:string)['a=1;b=x;a=2', 'c=3', ''] | parse-kv s as (a:long, b:long, c) with (pair_delimiter=';', kv_delimiter='=') | project-away s`,
			"a:integer, b:integer, c:string", []string{`[1,null,null]`, `[null,null,"3"]`, `[null,null,null]`}},
		{"replaces a field", `datatable(status:long, kv:string)[1, 'status=404'] | parse-kv kv as (status:long) with (pair_delimiter=';', kv_delimiter='=')`,
			"status:integer, kv:string", []string{`[404,"status=404"]`}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) { opsExpect(t, c.q, c.cols, c.rows...) })
	}
}

func TestParseKvErrors(t *testing.T) {
	base := `datatable(s:string)['a=1'] | parse-kv s as (a) with `
	opsExpectError(t, base+`(pair_delimiter=';')`, 1, 30, "both pair_delimiter and kv_delimiter")
	opsExpectError(t, base+`(pair_delimiter=';', kv_delimiter='=', regex='(a)(b)')`, 1, 30, "either delimiters or a regex")
	opsExpectError(t, base+`(regex='(a)')`, 1, 60, "exactly two groups")
	opsExpectError(t, base+`(quote='abc')`, 1, 60, "one or two characters")
	opsExpectError(t, base+`(nope='x')`, 1, 54, "unknown parse-kv option")
	opsExpectError(t, base+`(greedy='yes')`, 1, 61, "greedy must be true or false")
	opsExpectError(t, `datatable(s:string)['a=1'] | parse-kv s as (a, a)`, 1, 48, `lists key "a" twice`)
}
