package fn

import (
	"flag"
	"os"
	"strings"
	"testing"
)

var updateDoc = flag.Bool("update", false, "rewrite FUNCTIONS.md from the registry")

// TestFunctionsDoc keeps FUNCTIONS.md equal to the registry: it fails when
// a function was added or changed without regenerating the file.
func TestFunctionsDoc(t *testing.T) {
	got := Markdown()
	if *updateDoc {
		if err := os.WriteFile("FUNCTIONS.md", []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile("FUNCTIONS.md")
	if err != nil {
		t.Fatalf("%v (run go test ./core/fn -run TestFunctionsDoc -update)", err)
	}
	if string(want) != got {
		t.Fatal("FUNCTIONS.md is stale: run go test ./core/fn -run TestFunctionsDoc -update")
	}
}

func TestEveryFunctionIsDocumented(t *testing.T) {
	for _, f := range All() {
		if f.Doc == "" || f.Family == "" || f.Result == nil || f.Eval == nil {
			t.Errorf("%s: missing doc, family, Result or Eval", f.Name)
		}
		if f.MaxArgs >= 0 && f.MaxArgs < f.MinArgs {
			t.Errorf("%s: MaxArgs %d < MinArgs %d", f.Name, f.MaxArgs, f.MinArgs)
		}
		if !strings.Contains(Markdown(), "| `"+f.Name+"` |") {
			t.Errorf("%s missing from the reference", f.Name)
		}
	}
}

// partA lists the documented names this half of the package implements
// (apl.md §1.4 plus format_datetime and the iif alias); each must be
// registered.
var partA = strings.Fields(`
base64_decode_toarray base64_decode_tostring base64_encode_fromarray base64_encode_tostring coalesce countof
countof_regex extract extract_all format_bytes format_url gettype indexof indexof_regex isascii isempty
isnotempty isnotnull isnull parse_bytes parse_csv parse_json parse_path parse_url parse_urlquery quote
regex_quote replace replace_regex replace_string reverse split strcat strcat_delim strcmp string_size
strip_ansi_escapes strlen strrep substring tolower totitle toupper translate trim trim_end trim_end_regex
trim_regex trim_space trim_start trim_start_regex unicode_codepoints_from_string unicode_codepoints_to_string
url_decode url_encode
ago datetime_add datetime_diff datetime_part dayofmonth dayofweek dayofyear endofday endofmonth endofweek
endofyear getmonth getyear hourofday monthofyear now startofday startofmonth startofweek startofyear
unixtime_microseconds_todatetime unixtime_milliseconds_todatetime unixtime_nanoseconds_todatetime
unixtime_seconds_todatetime week_of_year format_datetime
abs acos asin atan atan2 cos cot degrees exp exp10 exp2 gamma isfinite isinf isint isnan log log10 log2
loggamma max_of min_of not pi pow radians rand range round set_difference set_has_element set_intersect
set_union sign sin sqrt tan
bin bin_auto ceiling floor case iff iif
dynamic_to_json isbool toarray tobool todatetime todouble todynamic tohex toint tolong toreal tostring totimespan
hash hash_md5 hash_sha1 hash_sha256 hash_sha512
iscc isimei ismap isreal isstring isutf8`)

func TestPartAFunctionsRegistered(t *testing.T) {
	for _, name := range partA {
		if Lookup(name) == nil {
			t.Errorf("%s is documented by Axiom but not registered", name)
		}
	}
}
