package fn

import (
	"strings"
	"testing"

	"github.com/aplite/aplite/vector"
)

var xNullStr = xTyped{vector.String, nil}

func TestStringFunctions(t *testing.T) {
	xRunCases(t, []xCase{
		// Examples from Axiom's pages.
		{"strlen", []any{"axiom"}, int64(5)},
		{"toupper", []any{"axiom"}, "AXIOM"},
		{"tolower", []any{"AXIOM"}, "axiom"},
		{"totitle", []any{"axiom"}, "Axiom"},
		{"reverse", []any{"axiom"}, "moixa"},
		{"strcat", []any{"axiom", int64(3249)}, "axiom3249"},
		{"strcat_delim", []any{":", "axiom", "monitoring"}, "axiom:monitoring"},
		{"strcmp", []any{"axiom", "observability"}, int64(-1)},
		{"strrep", []any{"axiom", 3, "::"}, "axiom::axiom::axiom"},
		{"substring", []any{"axiom", 4, 5}, "m"},
		{"countof", []any{"/", "/api/v1/users"}, int64(3)},
		{"countof_regex", []any{"[0-9]+", "a1b22c333"}, int64(3)},
		{"extract", []any{"x=([0-9.]+)", 1, "axiom x=65.6|po"}, "65.6"},
		{"replace_regex", []any{"^logging", "axiom", "logging-data"}, "axiom-data"},
		{"replace_regex", []any{"observability=(.+)", "axiom=$1", "observability=fast"}, "axiom=fast"},
		{"replace", []any{"[html]", "[censored]", "html"}, "[censored][censored][censored][censored]"},
		{"replace_string", []any{"github", "axiom", "The project is hosted on github"}, "The project is hosted on axiom"},
		{"split", []any{"axiom_observability_monitoring", "_"}, []any{"axiom", "observability", "monitoring"}},
		{"trim", []any{"axiom", "observability"}, "bservability"},
		{"trim", []any{"--", "--https://axiom.co--"}, "https://axiom.co"},
		{"trim_start", []any{"/", "//api/x/"}, "api/x/"},
		{"trim_end", []any{"/", "//api/x/"}, "//api/x"},
		{"trim_regex", []any{"^github", "githubclosed"}, "closed"},
		{"trim_regex", []any{"[/]+", "//api/login/"}, "api/login"},
		{"trim_start_regex", []any{"github", "githubgithub/axiomhq"}, "/axiomhq"},
		{"trim_end_regex", []any{"[0-9]+", "build123"}, "build"},
		{"trim_space", []any{"  \t axiom \n"}, "axiom"},
		{"url_encode", []any{"https://www.axiom.co/"}, "https%3A%2F%2Fwww.axiom.co%2F"},
		{"url_decode", []any{"https%3A%2F%2Fwww.axiom.co%2F"}, "https://www.axiom.co/"},
		{"base64_encode_tostring", []any{"This is an encoded message."}, "VGhpcyBpcyBhbiBlbmNvZGVkIG1lc3NhZ2Uu"},
		{"base64_decode_tostring", []any{"VGhpcyBpcyBhbiBlbmNvZGVkIG1lc3NhZ2Uu"}, "This is an encoded message."},
		{"base64_decode_toarray", []any{"S3VzdG8="}, []any{int64(75), int64(117), int64(115), int64(116), int64(111)}},
		{"base64_encode_fromarray", []any{[]any{int64(75), int64(117), int64(115), int64(116), int64(111)}}, "S3VzdG8="},
		{"parse_bytes", []any{"1 KB"}, int64(1024)},
		{"parse_bytes", []any{"1 KB", 10}, int64(1000)},
		{"parse_bytes", []any{"128 Bytes"}, int64(128)},
		{"parse_bytes", []any{"bad data"}, int64(0)},
		{"format_bytes", []any{1024}, "1 KB"},
		{"format_bytes", []any{8000000, 2, "MB", 10}, "8.00 MB"},
		{"format_bytes", []any{3456789, 2}, "3.30 MB"},
		{"format_bytes", []any{100}, "100 Bytes"},
		{"parse_csv", []any{"axiom,logging,observability"}, []any{"axiom", "logging", "observability"}},
		{"parse_csv", []any{"axiom, processing, language"}, []any{"axiom", "processing", "language"}},
		{"parse_csv", []any{`a,"b,c",d`}, []any{"a", "b,c", "d"}},
		{"parse_urlquery", []any{"a1=b1&a2=b2&a3=b3"}, map[string]any{"a1": "b1", "a2": "b2", "a3": "b3"}},
		{"parse_urlquery", []any{"?user_id=12345&action=checkout"}, map[string]any{"user_id": "12345", "action": "checkout"}},
		{"parse_json", []any{`{"name":"vercel", "statuscode":200, "region": {"number": 9.5}}`},
			map[string]any{"name": "vercel", "statuscode": int64(200), "region": map[string]any{"number": 9.5}}},
		{"parse_json", []any{"not json"}, "not json"},
		{"parse_json", []any{"[6, 7, 8]"}, []any{int64(6), int64(7), int64(8)}},
		{"parse_json", []any{""}, nil},
		{"gettype", []any{"lima"}, "string"},
		{"gettype", []any{2222}, "int"},
		{"gettype", []any{true}, "bool"},
		{"gettype", []any{456.98}, "real"},
		{"gettype", []any{map[string]any{"axiom": int64(1234)}}, "dictionary"},
		{"gettype", []any{[]any{int64(6)}}, "array"},
		{"gettype", []any{nil}, "null"},
		{"isempty", []any{""}, true},
		{"isempty", []any{xNullStr}, true},
		{"isempty", []any{0}, false},
		{"isnotempty", []any{""}, false},
		{"isnotempty", []any{"a"}, true},
		{"isnull", []any{xNullStr}, true},
		{"isnull", []any{""}, false},
		{"isnotnull", []any{int64(3)}, true},
		{"notnull", []any{nil}, false},
		{"coalesce", []any{xNullStr, "", "b", "c"}, "b"},
		{"coalesce", []any{nil, int64(2), 1.5}, 2.0},
		{"coalesce", []any{xNullStr, xNullStr}, nil},
		{"quote", []any{`say "hi"`}, `"say \"hi\""`},
		{"regex_quote", []any{"a.b*c"}, `a\.b\*c`},
		{"translate", []any{"ab123", "abcdefghijklmnopqrstuvwxyz", "**************************"}, "**123"},
		{"translate", []any{"frontend", "aeiou", ""}, "frntnd"},
		{"indexof", []any{"/api/v2/users", "/v", 0}, int64(4)},
		{"indexof", []any{"abcabc", "c", 0, -1, 2}, int64(5)},
		{"indexof", []any{"abc", "x"}, int64(-1)},
		{"indexof", []any{"abc", "b", -1}, int64(-1)}, // a negative start counts from the end (KQL), so only "c" is searched
		{"indexof", []any{"abc def ab", "ab", -2}, int64(8)},
		// Kusto's examples idx1..idx9 (idx6 with the casts written out).
		{"indexof", []any{"abcdefg", "cde"}, int64(2)},
		{"indexof", []any{"abcdefg", "cde", 1, 4}, int64(2)},
		{"indexof", []any{"abcdefg", "cde", 1, 2}, int64(-1)},
		{"indexof", []any{"abcdefg", "cde", 3, 4}, int64(-1)},
		{"indexof", []any{"abcdefg", "cde", -5}, int64(2)},
		{"indexof", []any{"1234567", "5", 1, 4}, int64(4)},
		{"indexof", []any{"abcdefg", "cde", 2, -1}, int64(2)},
		{"indexof", []any{"abcdefgabcdefg", "cde", 1, 10, 2}, int64(9)}, // was -1
		{"indexof", []any{"abcdefgabcdefg", "cde", 1, -1, 3}, int64(-1)},
		{"indexof", []any{"abcdefg", "cde", 1, -2}, nil},
		{"indexof", []any{"abcdefg", "cde", 0, -1, 0}, nil},
		{"indexof", []any{"abc", "c", 5}, int64(-1)},
		{"indexof", []any{"abc", "c", -10}, int64(2)},
		{"indexof", []any{"aaa", "", 0, -1, 4}, int64(3)},
		{"indexof", []any{"aaa", "", 0, -1, 5}, int64(-1)},
		{"indexof", []any{"é-é-é", "é", 1, 2, 2}, int64(4)},
		{"indexof_regex", []any{"/api/user-12345/settings", "user-[0-9]+"}, int64(5)},
		{"indexof_regex", []any{"abc", "b", 0, 0}, nil},
		{"isascii", []any{"abc"}, true},
		{"isascii", []any{"ünï"}, false},
		{"string_size", []any{"ünï"}, int64(5)},
		{"unicode_codepoints_from_string", []any{"⭐A"}, []any{int64(11088), int64(65)}},
		{"unicode_codepoints_to_string", []any{int64(11088), []any{int64(65), int64(66)}}, "⭐AB"},
		{"strip_ansi_escapes", []any{"\x1b[31mred\x1b[0m text"}, "red text"},
		{"extract_all", []any{`(\w)(\w+)(\w)`, []any{int64(1), int64(3)}, "The price of PINEAPPLE ice cream is 20"},
			[]any{[]any{"T", "e"}, []any{"p", "e"}, []any{"P", "E"}, []any{"i", "e"}, []any{"c", "m"}}},
		{"extract_all", []any{`(\d+)`, "a1b22"}, []any{"1", "22"}},
		// Kusto's examples: several groups give an array per match, and
		// captureGroups may name (?P<name>...) groups (those gave null).
		{"extract_all", []any{`(\w)(\w+)(\w)`, "82b8be2d-dfa7-4bd1-8f63-24ad26d31449"},
			bJ(`[["8","2b8be2","d"],["d","fa","7"],["4","bd","1"],["8","f6","3"],["2","4ad26d3144","9"]]`)},
		{"extract_all", []any{`(?P<first>\w)(?P<middle>\w+)(?P<last>\w)`, bJ(`["first",2,"last"]`), "82b8be2d-dfa7-4bd1-8f63-24ad26d31449"},
			bJ(`[["8","2b8be2","d"],["d","fa","7"],["4","bd","1"],["8","f6","3"],["2","4ad26d3144","9"]]`)},
		{"extract_all", []any{`(?P<first>\w)(\w+)(?<last>\w)`, bJ(`["last"]`), "abc-cde"}, bJ(`["c","e"]`)},
		{"extract_all", []any{`(?P<x>\d+)-(\d+)`, bJ(`["x","nosuch"]`), "1-2"}, nil},
		{"extract_all", []any{`(\d+)-(\d+)`, bJ(`[1,2]`), "a 1-2 b 3-4"}, bJ(`[["1","2"],["3","4"]]`)},
		{"extract_all", []any{`(\d+)-(\d+)`, "none"}, nil},
		{"parse_url", []any{"https://user:pw@www.example.com:8080/path/to/page?query=example#frag"}, map[string]any{
			"scheme": "https", "host": "www.example.com", "port": "8080", "path": "/path/to/page",
			"username": "user", "password": "pw", "query": map[string]any{"query": "example"}, "fragment": "frag"}},
		{"parse_path", []any{"https://example.com/data/file.json?q=xyz"}, map[string]any{
			"scheme": "https", "host": "example.com", "port": "", "directory": "/data", "basename": "file.json",
			"extension": "json", "query": "?q=xyz"}},
		{"format_url", []any{map[string]any{"scheme": "https", "host": "github.com", "path": "/axiomhq/next-axiom"}}, "https://github.com/axiomhq/next-axiom"},

		// Edge cases: unicode counts characters, bounds clamp, nulls propagate.
		{"strlen", []any{"héllo wörld ⭐"}, int64(13)},
		{"strlen", []any{12345}, int64(5)},
		{"strlen", []any{""}, int64(0)},
		{"strlen", []any{xNullStr}, nil},
		{"toupper", []any{"héllo"}, "HÉLLO"},
		{"reverse", []any{"añb⭐"}, "⭐bña"},
		{"substring", []any{"héllo", 1, 3}, "éll"},
		{"substring", []any{"héllo", -3, 2}, "hé"},
		{"substring", []any{"héllo", 10}, ""},
		{"substring", []any{"héllo", 1, -1}, ""},
		{"substring", []any{xNullStr, 1}, nil},
		{"substring", []any{"abc", xTyped{vector.Int, nil}}, nil},
		{"strcat", []any{"a", xNullStr, 1.5, true}, "a1.5true"},
		{"strrep", []any{"ab", 0}, ""},
		{"strrep", []any{"a", 2000}, strings.Repeat("a", 1024)},
		{"countof", []any{"aa", "aaa"}, int64(2)},
		{"countof", []any{"", "abc"}, int64(0)},
		{"countof_regex", []any{"aa", "aaa"}, int64(1)},
		{"extract", []any{"x=([0-9]+)", 2, "x=1"}, nil},
		{"extract", []any{"y=([0-9]+)", 1, "x=1"}, nil},
		{"split", []any{"a,b,c", ",", 1}, []any{"b"}},
		{"split", []any{"a,b,c", ",", 7}, nil},
		{"replace_string", []any{"", "x", "abc"}, "abc"},
		{"base64_decode_tostring", []any{"!!notbase64"}, nil},
		{"url_decode", []any{"%zz"}, nil},
		{"unicode_codepoints_to_string", []any{int64(-5)}, nil},
		{"parse_url", []any{"not a url"}, nil},
		{"format_bytes", []any{1.0, 0, "", 7}, nil},
	})
}

func TestStringTypeErrors(t *testing.T) {
	xRunTypeErrs(t, []xTypeErr{
		{"substring", []vector.Type{vector.String, vector.String}, "argument 2 of substring must be long, got string"},
		{"substring", []vector.Type{vector.String, vector.Int, vector.Float}, "argument 3 of substring must be long, got real"},
		{"strrep", []vector.Type{vector.String, vector.Bool}, "argument 2 of strrep must be long, got bool"},
		{"format_bytes", []vector.Type{vector.String}, "argument 1 of format_bytes must be long or real, got string"},
		{"base64_encode_fromarray", []vector.Type{vector.Int}, "argument 1 of base64_encode_fromarray must be dynamic, got long"},
	})
}

func TestInvalidConstRegexIsAnError(t *testing.T) {
	for _, name := range []string{"extract", "replace_regex", "trim_regex"} {
		args := []*vector.Vector{xConst(vector.String, "(", 2), xConst(vector.Int, int64(1), 2), xCol(vector.String, "a", "b")}
		if name != "extract" {
			args[1] = xConst(vector.String, "x", 2)
		}
		if name == "trim_regex" {
			args = []*vector.Vector{args[0], args[2]}
		}
		if _, err := Lookup(name).Eval(&Context{}, args, Dense(2)); err == nil || !strings.Contains(err.Error(), "invalid regular expression") {
			t.Errorf("%s: err = %v", name, err)
		}
	}
}

func TestDictionaryStringResultStaysEncoded(t *testing.T) {
	d := xDict("GET", "POST", "GET", nil)
	out, err := Lookup("tolower").Eval(&Context{}, []*vector.Vector{d}, Dense(4))
	if err != nil {
		t.Fatal(err)
	}
	if out.Codes == nil || len(out.Dict) != len(d.Dict) {
		t.Fatalf("tolower over a dictionary should keep it: %+v", out)
	}
	want := []any{"get", "post", "get", nil}
	for i, w := range want {
		if got := out.Value(i); got != w {
			t.Errorf("row %d = %v, want %v", i, got, w)
		}
	}
}

func benchStringColumn(dict bool) *vector.Vector {
	vals := make([]any, vector.BatchSize)
	methods := []string{"GET /api/Users", "POST /api/Orders", "PUT /api/Items", "DELETE /api/Cart"}
	for i := range vals {
		vals[i] = methods[i%len(methods)]
	}
	if dict {
		return xDict(vals...)
	}
	return xCol(vector.String, vals...)
}

func BenchmarkTolower(b *testing.B) {
	for _, dict := range []bool{false, true} {
		name := "plain"
		if dict {
			name = "dict"
		}
		b.Run(name, func(b *testing.B) {
			col := benchStringColumn(dict)
			f := Lookup("tolower")
			b.ReportAllocs()
			b.SetBytes(int64(vector.BatchSize * 16))
			for b.Loop() {
				if _, err := f.Eval(&Context{}, []*vector.Vector{col}, Dense(vector.BatchSize)); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

func BenchmarkIndexof(b *testing.B) {
	for _, dict := range []bool{false, true} {
		name := "plain"
		if dict {
			name = "dict"
		}
		b.Run(name, func(b *testing.B) {
			args := []*vector.Vector{benchStringColumn(dict), xConst(vector.String, "Orders", vector.BatchSize)}
			f := Lookup("indexof")
			b.ReportAllocs()
			b.SetBytes(int64(vector.BatchSize * 16))
			for b.Loop() {
				if _, err := f.Eval(&Context{}, args, Dense(vector.BatchSize)); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
