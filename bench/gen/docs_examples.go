package gen

import (
	"encoding/base64"
	"math"
	"math/rand/v2"
	"strconv"
	"time"
)

// Fields that only documentation examples use. The function pages of the
// APL reference illustrate a function on a real dataset with a field
// named for its role (field, x, value, angle_rad, client_ip, json_field,
// …) that the dataset itself lacks. The docs assume such a field exists,
// so the generated data has it, with values that are valid input for
// the function (an angle in radians, an IP address, a JSON string for
// parse_json, a size for parse_bytes), so the examples run rather than
// fail on a missing field. They are drawn from a stream of their own, so
// adding one leaves the dataset's other fields as they were. A field
// that other examples rule out (url, see httpExampleFields) is left
// out.

// httpExampleMaps are the map fields (objects kept whole) among
// sample-http-logs' example fields: bag_has_key and ismap take a bag.
var httpExampleMaps = []string{"dynamic_field"}

// httpExampleFields adds to each sample-http-logs event the fields of
// the examples on sample-http-logs that name a field the dataset lacks
// (the string, math, IP and conversion function pages, parse-kv,
// mv-expand).
func httpExampleFields(seed int64, evs []map[string]any) {
	r := rand.New(rand.NewPCG(uint64(seed), docsStream("sample-http-logs/examples")))
	for _, e := range evs {
		t, _ := time.Parse(time.RFC3339Nano, e["_time"].(string))
		// String functions (strlen, split, trim_*, replace_*, countof,
		// extract, url_encode, …): text with spaces, commas, the words
		// the examples search for, and sometimes nothing at all.
		e["field"] = exampleTexts[r.IntN(len(exampleTexts))]
		// coalesce, strcat, strcat_delim: three strings, the first two
		// sometimes missing so coalesce has something to skip.
		for i, f := range []string{"field1", "field2", "field3"} {
			if i == 2 || r.IntN(3) > 0 {
				e[f] = exampleWords[r.IntN(len(exampleWords))]
			}
		}
		e["str1"] = exampleWords[r.IntN(len(exampleWords))]
		e["str2"] = exampleWords[r.IntN(len(exampleWords))]
		// base64_*_tostring, gettype, parse_csv: a base64 string (it
		// decodes to text, and parses as a one-value CSV record).
		e["field_name"] = base64.StdEncoding.EncodeToString([]byte(exampleWords[r.IntN(len(exampleWords))]))
		e["size_str"] = exampleSizes[r.IntN(len(exampleSizes))]
		e["json_field"] = `{"field":{"name":"` + exampleWords[r.IntN(len(exampleWords))] + `","id":` + strconv.Itoa(r.IntN(100)) + `}}`
		e["raw_column"] = `{"key":"` + exampleWords[r.IntN(len(exampleWords))] + `"}`
		// No url for parse_url: the project-rename examples rename uri
		// to url, which fails when the dataset already has a url.
		e["kvdata"] = "status=" + e["status"].(string) + ";req_duration_ms=" + strconv.FormatFloat(e["req_duration_ms"].(float64), 'f', -1, 64)
		// Conversion functions: booleans as text (tobool) and as bools.
		e["is_active"] = []string{"true", "false", "1", "0"}[r.IntN(4)]
		e["enabled"] = r.IntN(2) == 0
		e["epoch_ms"] = t.UnixMilli()
		// Arrays and bags.
		arr := make([]any, r.IntN(5))
		for i := range arr {
			arr[i] = int64(r.IntN(100))
		}
		e["array_field"] = arr
		bag := map[string]any{"source": []string{"web", "mobile"}[r.IntN(2)]}
		if r.IntN(2) == 0 {
			bag["keyName"] = exampleWords[r.IntN(len(exampleWords))]
		}
		e["dynamic_field"] = bag
		terr := make([]any, 1+r.IntN(3))
		for i := range terr {
			terr[i] = exampleTerritories[r.IntN(len(exampleTerritories))]
		}
		e["territories"] = terr
		// IP functions: IPv4 addresses, private and public, some in the
		// 192.168.0.0/24 the examples test; IPv6 ones, some in
		// 2001:db8::/32.
		e["client_ip"] = exampleIPv4(r)
		e["ip_address"] = exampleIPv4(r)
		e["ip1"] = exampleIPv4(r)
		e["ip2"] = exampleIPv4(r)
		e["src_ip"] = exampleIPv6(r)
		// Math functions: each field in its function's domain.
		e["angle_rad"] = round3(r.Float64() * 2 * math.Pi)
		e["angle_deg"] = round3(r.Float64() * 360)
		e["normalized_rate"] = round3(r.Float64())     // acos, asin: [0, 1]
		e["normalized"] = round3(r.Float64()*2 - 1)    // atan
		e["log_value"] = round3(r.Float64() * 5)       // exp
		e["x"] = round3(r.Float64()*8 - 2)             // exp2, exp10, gamma, loggamma
		e["value"] = round3(r.Float64()*200 - 100)     // isfinite, isinf, isint, isnan
		e["avg_duration"] = round3(r.Float64() * 1000) // round
		e["deviation"] = round3(r.NormFloat64() * 20)  // sign
		e["errors"] = int64(r.IntN(20))
		e["successes"] = int64(r.IntN(200))
		// format_url over a bag of the URL's parts, bag_zip over values.
		e["scheme"] = []string{"https", "http"}[r.IntN(2)]
		e["host"] = []string{"api.example.com", "www.example.com", "localhost"}[r.IntN(3)]
		e["port"] = []int64{443, 80, 8080}[r.IntN(3)]
		e["path"] = []string{"/api/v1/users", "/login", "/"}[r.IntN(3)]
		e["value1"] = exampleWords[r.IntN(len(exampleWords))]
		e["value2"] = int64(r.IntN(100))
	}
}

// round3 rounds x to 3 decimals, the precision of a log's numbers.
func round3(x float64) float64 { return math.Round(x*1000) / 1000 }

func exampleIPv4(r *rand.Rand) string {
	switch r.IntN(4) {
	case 0:
		return "192.168.0." + strconv.Itoa(r.IntN(256))
	case 1:
		return "10." + strconv.Itoa(r.IntN(256)) + "." + strconv.Itoa(r.IntN(256)) + "." + strconv.Itoa(1+r.IntN(254))
	}
	return strconv.Itoa(1+r.IntN(223)) + "." + strconv.Itoa(r.IntN(256)) + "." + strconv.Itoa(r.IntN(256)) + "." + strconv.Itoa(1+r.IntN(254))
}

func exampleIPv6(r *rand.Rand) string {
	prefix := []string{"2001:db8", "2001:db8", "2a00:1450", "fe80:0"}[r.IntN(4)]
	return prefix + "::" + strconv.FormatInt(int64(r.IntN(0x10000)), 16) + ":" + strconv.FormatInt(int64(r.IntN(0x10000)), 16)
}

var (
	exampleTexts = []string{"  search results for pattern  ", "old_text, new_text, more", "Hello World",
		"a,b,c", "https://example.com/a b?x=1&y=é", "search%20term%2Fpath", "pattern pattern pattern", ""}
	exampleWords       = []string{"alpha", "Beta", "gamma ray", "delta", "error", "ok", "Hello", "world"}
	exampleSizes       = []string{"512 B", "1 KB", "1.5 KB", "20 MB", "3 GB", "1024"}
	exampleTerritories = []string{"Europe", "North America", "Asia", "Africa", "Oceania"}
)

// otelExampleFields adds to an otel-demo-traces span the fields of the
// examples that read it like an access log: avgif filters on status ==
// "500" and percentiles_arrayif on ['method'] == "POST". An HTTP span
// gets its response status (as text, as in sample-http-logs) and its
// method; other spans have neither. A span's OTel status is the object
// status (status.code, status.message): a JSON object cannot hold it and
// a status string too, so it is written as its flattened fields, the
// fields ingest makes of it anyway.
func otelExampleFields(e map[string]any, s Span) {
	if s.HTTPMethod == "" {
		return
	}
	e["method"] = s.HTTPMethod
	if s.HTTPStatus == 0 {
		return
	}
	if st, ok := e["status"].(map[string]any); ok {
		for k, v := range st {
			e["status."+k] = v
		}
	}
	e["status"] = strconv.Itoa(s.HTTPStatus)
}

// ghPushExampleFields adds to a github-push-event event the fields the
// project-reorder example names besides the dataset's own: num_commits
// (the commits of the push, as size) and size_large, which the example
// only reorders (a flag for pushes of many commits).
func ghPushExampleFields(e map[string]any) {
	e["num_commits"] = e["size"]
	e["size_large"] = e["size"].(int64) > 2
}
