package fn

import (
	"strings"
	"testing"

	"github.com/aplite/aplite/internal/testutil"
	"github.com/aplite/aplite/vector"
)

func TestMetadataFunctions(t *testing.T) {
	f := Lookup("column_ifexists")
	for _, typ := range []vector.Type{vector.String, vector.Int, vector.Dynamic} {
		if got, err := f.Result([]vector.Type{vector.String, typ}); err != nil || got != typ {
			t.Errorf("column_ifexists(string, %s) types as %s, %v", typ, got, err)
		}
	}
	bResultErr(t, "column_ifexists", "argument 1 of column_ifexists must be a field name", vector.Int, vector.String)
	def := xCol(vector.Int, int64(100), nil, int64(3))
	got := bCall(t, "column_ifexists", 3, xConst(vector.String, "status_code", 3), def)
	if got[0] != int64(100) || got[1] != nil || got[2] != int64(3) {
		t.Errorf("column_ifexists default = %v", got)
	}
	for name, typ := range map[string]vector.Type{"cursor_current": vector.String, "ingestion_time": vector.DateTime} {
		g := Lookup(name)
		if !g.Volatile {
			t.Errorf("%s must be volatile so the planner does not fold it", name)
		}
		if rt, _ := g.Result(nil); rt != typ {
			t.Errorf("%s types as %s", name, rt)
		}
		if got := bCall(t, name, 2); got[0] != nil || got[1] != nil {
			t.Errorf("%s without planner support = %v", name, got)
		}
	}
}

func TestPairFunctions(t *testing.T) {
	tags := bJ(`["server:web01","env:production","region:us-west","url:http://x:8080"]`)
	bRunCases(t, []bCase{
		{"pair", []any{"method", "GET"}, "method:GET"},
		{"pair", []any{"status", 200}, "status:200"},
		{"pair", []any{"US", "New York", "/"}, "US/New York"},
		{"pair", []any{"k", nullStr}, nil},
		{"pair", []any{"", ""}, ":"},
		{"parse_pair", []any{"host:server1"}, bJ(`{"key":"host","value":"server1","separator":":"}`)},
		{"parse_pair", []any{"GET=200", "="}, bJ(`{"key":"GET","value":"200","separator":"="}`)},
		{"parse_pair", []any{"url:http://x:8080"}, bJ(`{"key":"url","value":"http://x:8080","separator":":"}`)},
		{"parse_pair", []any{"no separator"}, bJ(`{"key":"","value":"no separator","separator":":"}`)},
		{"parse_pair", []any{"ключ:значение"}, bJ(`{"key":"ключ","value":"значение","separator":":"}`)},
		{"parse_pair", []any{nullStr}, nil},
		{"find_pair", []any{tags, "server", "*"}, bJ(`{"key":"server","value":"web01"}`)},
		{"find_pair", []any{bJ(`["host:frontend-1","version:v1.2.3"]`), "host", "frontend*"}, bJ(`{"key":"host","value":"frontend-1"}`)},
		{"find_pair", []any{tags, "*", "*west"}, bJ(`{"key":"region","value":"us-west"}`)},
		{"find_pair", []any{tags, "url", "http://*:8080"}, bJ(`{"key":"url","value":"http://x:8080"}`)},
		{"find_pair", []any{tags, "e*v", "prod*"}, bJ(`{"key":"env","value":"production"}`)},
		{"find_pair", []any{tags, "env", "staging"}, nil},
		{"find_pair", []any{bJ(`["a=1","b=2"]`), "b", "*", "="}, bJ(`{"key":"b","value":"2"}`)},
		{"find_pair", []any{bJ(`[1,{"k":"v"},"k:v"]`), "k", "v"}, bJ(`{"key":"k","value":"v"}`)},
		{"find_pair", []any{bJ(`[]`), "*", "*"}, nil},
		{"find_pair", []any{nullDyn, "*", "*"}, nil},
	})
	for _, c := range []struct {
		p, s string
		want bool
	}{{"*", "", true}, {"", "", true}, {"", "a", false}, {"a*b*c", "aXbYc", true}, {"a*b*c", "aXbY", false}, {"**", "x", true}, {"a", "A", false}} {
		if got := pairGlob(c.p, c.s); got != c.want {
			t.Errorf("pairGlob(%q, %q) = %v", c.p, c.s, got)
		}
	}
}

func TestParseSQL(t *testing.T) {
	col := func(n string) string { return `{"colname":"` + n + `"}` }
	num := func(v string) string { return `{"value":"` + v + `","valtype":"integer"}` }
	op := func(o string, ps ...string) string {
		return `{"operator":"` + o + `","params":[` + strings.Join(ps, ",") + `]}`
	}
	bRunCases(t, []bCase{
		// The three examples of Axiom's page, exactly: "statement", "colname",
		// "from" as a list of tables, "order" with lower-case "direction",
		// literals as text with "valtype", operators with "params". The
		// earlier shape ("type", "name", "from":"requests", "orderby",
		// "DESC") matched none of them.
		{"parse_sql", []any{"SELECT id, status, uri FROM requests WHERE req_duration_ms > 1000 ORDER BY req_duration_ms DESC"},
			bJ(`{"columns":[{"colname":"id"},{"colname":"status"},{"colname":"uri"}],"from":[{"table":"requests"}],
				"order":[{"direction":"desc","expr":{"colname":"req_duration_ms"}}],"statement":"select",
				"where":{"operator":">","params":[{"colname":"req_duration_ms"},{"value":"1000","valtype":"integer"}]}}`)},
		{"parse_sql", []any{"SELECT trace_id, span_id, duration FROM traces ORDER BY duration DESC"},
			bJ(`{"columns":[{"colname":"trace_id"},{"colname":"span_id"},{"colname":"duration"}],"from":[{"table":"traces"}],
				"order":[{"direction":"desc","expr":{"colname":"duration"}}],"statement":"select"}`)},
		{"parse_sql", []any{"SELECT id, status FROM logs WHERE status = 401 OR status = 403"},
			bJ(`{"columns":[{"colname":"id"},{"colname":"status"}],"from":[{"table":"logs"}],"statement":"select",
				"where":{"operator":"or","params":[
					{"params":[{"colname":"status"},{"value":"401","valtype":"integer"}],"operator":"="},
					{"operator":"=","params":[{"colname":"status"},{"valtype":"integer","value":"403"}]}]}}`)},
		{"parse_sql", []any{"select id from logs order by id"},
			bJ(`{"statement":"select","columns":[` + col("id") + `],"from":[{"table":"logs"}],"order":[{"direction":"asc","expr":` + col("id") + `}]}`)},
		{"parse_sql", []any{"SELECT DISTINCT COUNT(*) AS n, l.uri FROM logs AS l GROUP BY l.uri HAVING COUNT(*) >= 2 LIMIT 10 OFFSET 5;"},
			bJ(`{"statement":"select","distinct":true,"columns":[{"func":"count","params":[` + col("*") + `],"alias":"n"},` + col("l.uri") + `],
				"from":[{"table":"logs","alias":"l"}],"group":[` + col("l.uri") + `],
				"having":` + op(">=", `{"func":"count","params":[`+col("*")+`]}`, num("2")) + `,
				"limit":10,"offset":5}`)},
		{"parse_sql", []any{"SELECT * FROM t WHERE name LIKE 'O''Brien%' AND x NOT IN (1, -2.5) AND y IS NOT NULL AND z BETWEEN 1 AND 2"},
			bJ(`{"statement":"select","columns":[` + col("*") + `],"from":[{"table":"t"}],"where":` +
				op("and",
					op("and",
						op("and",
							op("like", col("name"), `{"value":"O'Brien%","valtype":"string"}`),
							op("not in", col("x"), num("1"), `{"value":"-2.5","valtype":"float"}`)),
						op("is not null", col("y"))),
					op("between", col("z"), num("1"), num("2"))) + `}`)},
		{"parse_sql", []any{"SELECT -x, -(-3), NOT a, TRUE, NULL FROM t"},
			bJ(`{"statement":"select","columns":[` + op("-", col("x")) + `,` + num("3") + `,` + op("not", col("a")) + `,
				{"value":"true","valtype":"boolean"},{"value":null,"valtype":"null"}],"from":[{"table":"t"}]}`)},
		{"parse_sql", []any{`SELECT "geo.city" FROM logs l LEFT JOIN users u ON l.id = u.id`},
			bJ(`{"statement":"select","columns":[` + col("geo.city") + `],"from":[{"table":"logs","alias":"l"},
				{"table":"users","alias":"u","join":"left","on":` + op("=", col("l.id"), col("u.id")) + `}]}`)},
		{"parse_sql", []any{"WITH x AS (SELECT 1) SELECT * FROM x"}, nil},
		{"parse_sql", []any{"SELECT * FROM (SELECT 1)"}, nil},
		{"parse_sql", []any{"SELECT a FROM t WHERE b IN (SELECT c FROM u)"}, nil},
		{"parse_sql", []any{"SELECT ROW_NUMBER() OVER (ORDER BY a) FROM t"}, nil},
		{"parse_sql", []any{"SELECT a FROM t CROSS JOIN u"}, nil},
		{"parse_sql", []any{"DELETE FROM t"}, nil},
		{"parse_sql", []any{"SELECT FROM t"}, nil},
		{"parse_sql", []any{"SELECT 'unterminated FROM t"}, nil},
		{"parse_sql", []any{""}, nil},
		{"parse_sql", []any{nullStr}, nil},
	})
}

func TestFormatSQL(t *testing.T) {
	roundTrip := []struct{ in, want string }{
		// Axiom's page: lower-case keywords; the upper-case SELECT ... DESC
		// was not its output.
		{"SELECT id, status, uri FROM requests WHERE req_duration_ms > 1000 ORDER BY req_duration_ms DESC",
			"select id, status, uri from requests where req_duration_ms > 1000 order by req_duration_ms desc"},
		{"SELECT trace_id, span_id, duration FROM traces ORDER BY duration DESC",
			"select trace_id, span_id, duration from traces order by duration desc"},
		{"SELECT id, status FROM logs WHERE status = 401 OR status = 403",
			"select id, status from logs where status = 401 or status = 403"},
		{"select  id\n from logs   where status=500 order by id asc", "select id from logs where status = 500 order by id"},
		{"SELECT a FROM t WHERE (a = 1 OR b = 2) AND c = 3", "select a from t where (a = 1 or b = 2) and c = 3"},
		{"SELECT a - (b - c), (a * b) + c, a * (b + c) FROM t", "select a - (b - c), a * b + c, a * (b + c) from t"},
		{"SELECT count(distinct uri) n FROM t GROUP BY x HAVING count(*) > 1 LIMIT 5, 10",
			"select count(distinct uri) as n from t group by x having count(*) > 1 limit 10 offset 5"},
		{"SELECT * FROM t WHERE NOT (a = 1) AND s NOT LIKE 'it''s' AND z NOT BETWEEN -1 AND 2.5 AND q IS NULL",
			"select * from t where not a = 1 and s not like 'it''s' and z not between -1 and 2.5 and q is null"},
		{`SELECT "select", "geo.city", [my col] FROM "my table" t INNER JOIN u ON t.id = u.id`,
			`select "select", geo.city, "my col" from "my table" t inner join u on t.id = u.id`},
		{"SELECT -x, 1e3, 007, TRUE, NULL FROM t", "select -x, 1e3, 7, true, null from t"},
		// Comparisons do not chain: the parentheses must stay.
		{"SELECT a FROM t WHERE (a = b) = c AND (x IS NULL) = y", "select a from t where (a = b) = c and (x is null) = y"},
	}
	for _, c := range roundTrip {
		parsed := bCall(t, "parse_sql", 1, xCol(vector.String, c.in))[0]
		if parsed == nil {
			t.Errorf("parse_sql(%q) = null", c.in)
			continue
		}
		got := bCall(t, "format_sql", 1, xCol(vector.Dynamic, parsed))[0]
		if got != c.want {
			t.Errorf("format_sql(parse_sql(%q))\n got %v\nwant %q", c.in, got, c.want)
			continue
		}
		again := bCall(t, "parse_sql", 1, xCol(vector.String, c.want))[0]
		if !testutil.CloseValue(again, parsed, 1e-9) {
			t.Errorf("%q does not parse back to the same model", c.want)
		}
	}
	bRunCases(t, []bCase{
		{"format_sql", []any{bJ(`{"statement":"delete"}`)}, nil},
		{"format_sql", []any{bJ(`{"statement":"select","columns":[]}`)}, nil},
		{"format_sql", []any{bJ(`{"statement":"select","columns":[{"colname":"a"}],"where":{"operator":"mystery","params":[]}}`)}, nil},
		{"format_sql", []any{bJ(`{"statement":"select","columns":[{"colname":"a"}],"from":[{"table":"t"}],"limit":"ten"}`)}, nil},
		{"format_sql", []any{bJ(`{"statement":"select","columns":[{"value":"1; drop table t","valtype":"integer"}]}`)}, nil},
		{"format_sql", []any{bJ(`{"statement":"select","columns":[{"colname":"a"}],"from":[{"table":"t","join":"left"}]}`)}, nil},
		// A bag written by hand may give numbers as numbers.
		{"format_sql", []any{bJ(`{"statement":"select","columns":[{"value":2,"valtype":"integer"},{"value":true,"valtype":"boolean"}],"from":[{"table":"t"}]}`)}, "select 2, true from t"},
		{"format_sql", []any{bJ(`[1]`)}, nil},
		{"format_sql", []any{nullDyn}, nil},
	})
}

// partB lists the documented names the array, IP, series, metadata,
// pair, SQL and GenAI files implement (apl.md §1.4, plus bag_merge and the
// pack alias); each must be registered.
var partB = strings.Fields(`
array_concat array_extract array_iff array_index_of array_length array_reverse array_rotate_left
array_rotate_right array_select_dict array_shift_left array_shift_right array_slice array_sort_asc
array_sort_desc array_split array_sum bag_has_key bag_keys bag_pack pack bag_zip bag_merge isarray len
pack_array pack_dictionary strcat_array
format_ipv4 format_ipv4_mask geo_info_from_ip_address has_any_ipv4 has_any_ipv4_prefix has_ipv4
has_ipv4_prefix ipv4_compare ipv4_is_in_any_range ipv4_is_in_range ipv4_is_match ipv4_is_private
ipv4_netmask_suffix ipv6_compare ipv6_is_in_any_range ipv6_is_in_range ipv6_is_match parse_ipv4 parse_ipv4_mask
series_abs series_acos series_add series_asin series_atan series_ceiling series_cos series_cosine_similarity
series_divide series_dot_product series_equals series_exp series_fft series_fill_backward series_fill_const
series_fill_forward series_fill_linear series_fir series_floor series_greater series_greater_equals
series_ifft series_iir series_less series_less_equals series_log series_magnitude series_max series_min
series_multiply series_not_equals series_pearson_correlation series_pow series_sign series_sin series_stats
series_stats_dynamic series_subtract series_sum series_tan
column_ifexists cursor_current ingestion_time find_pair pair parse_pair parse_sql format_sql
genai_concat_contents genai_conversation_turns genai_cost genai_estimate_tokens genai_extract_assistant_response
genai_extract_function_results genai_extract_system_prompt genai_extract_tool_calls genai_extract_user_prompt
genai_get_content_by_index genai_get_content_by_role genai_get_pricing genai_get_role genai_has_tool_calls
genai_input_cost genai_is_truncated genai_message_roles genai_output_cost`)

func TestPartBFunctionsRegistered(t *testing.T) {
	if len(partB) != 112 {
		t.Fatalf("partB lists %d names, want 112", len(partB))
	}
	for _, name := range partB {
		if Lookup(name) == nil {
			t.Errorf("%s is documented by Axiom but not registered", name)
		}
	}
}
