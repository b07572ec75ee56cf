package fn

import (
	"fmt"
	"testing"

	"github.com/aplite/aplite/vector"
)

func TestIPv4Functions(t *testing.T) {
	bRunCases(t, []bCase{
		{"parse_ipv4", []any{"127.0.0.1"}, int64(2130706433)},
		{"parse_ipv4", []any{"192.1.168.1"}, int64(3221334017)},
		{"parse_ipv4", []any{"192.1.168.1/24"}, int64(3221334016)},
		{"parse_ipv4", []any{" 10.0.0.1 "}, int64(167772161)},
		{"parse_ipv4", []any{"010.000.000.001"}, int64(167772161)},
		{"parse_ipv4", []any{"255.255.255.255"}, int64(4294967295)},
		{"parse_ipv4", []any{"127.0.0.256"}, nil},
		{"parse_ipv4", []any{"127.0.0"}, nil},
		{"parse_ipv4", []any{"1.2.3.4/33"}, nil},
		{"parse_ipv4", []any{"::1"}, nil},
		{"parse_ipv4", []any{""}, nil},
		{"parse_ipv4", []any{nullStr}, nil},
		{"parse_ipv4_mask", []any{"10.1.2.3", 24}, int64(167838208)},
		{"parse_ipv4_mask", []any{"10.1.2.3/16", 24}, int64(167837696)},
		{"parse_ipv4_mask", []any{"10.1.2.3", 33}, nil},
		{"parse_ipv4_mask", []any{"10.1.2.3", -1}, nil},

		{"format_ipv4", []any{int64(3232235776)}, "192.168.1.0"},
		{"format_ipv4", []any{"192.168.1.255", 24}, "192.168.1.0"},
		{"format_ipv4", []any{int64(3232236031), 24}, "192.168.1.0"},
		{"format_ipv4", []any{"192.168.1.1/16"}, "192.168.0.0"},
		{"format_ipv4", []any{int64(-1)}, ""},
		{"format_ipv4", []any{int64(1) << 32}, ""},
		{"format_ipv4", []any{"not an ip"}, ""},
		{"format_ipv4", []any{"1.2.3.4", 40}, ""},
		{"format_ipv4", []any{nullInt}, nil},
		{"format_ipv4_mask", []any{24}, "255.255.255.0"},
		{"format_ipv4_mask", []any{16}, "255.255.0.0"},
		{"format_ipv4_mask", []any{32}, "255.255.255.255"},
		{"format_ipv4_mask", []any{0}, "0.0.0.0"},
		{"format_ipv4_mask", []any{"192.168.1.255", 24}, "192.168.1.0/24"},
		{"format_ipv4_mask", []any{int64(3232236031), 24}, "192.168.1.0/24"},
		{"format_ipv4_mask", []any{"10.1.2.3"}, "10.1.2.3/32"},
		{"format_ipv4_mask", []any{"10.1.2.3/8"}, "10.0.0.0/8"},
		{"format_ipv4_mask", []any{"bad", 8}, ""},

		{"ipv4_compare", []any{"127.0.0.1", "127.0.0.1"}, int64(0)},
		{"ipv4_compare", []any{"192.168.1.1", "192.168.1.255"}, int64(-1)},
		{"ipv4_compare", []any{"192.168.1.255", "192.168.1.1"}, int64(1)},
		{"ipv4_compare", []any{"192.168.1.1/24", "192.168.1.255/24"}, int64(0)},
		{"ipv4_compare", []any{"192.168.1.1", "192.168.1.255", 24}, int64(0)},
		{"ipv4_compare", []any{"255.0.0.0", "1.0.0.0"}, int64(1)},
		{"ipv4_compare", []any{"192.168.1.1", "x"}, nil},
		{"ipv4_compare", []any{"1.1.1.1", "1.1.1.1", 99}, nil},
		{"ipv4_is_match", []any{"203.0.113.112", "203.0.113.112"}, true},
		{"ipv4_is_match", []any{"192.168.1.1/24", "192.168.1.255/24"}, true},
		{"ipv4_is_match", []any{"192.168.1.1", "192.168.1.255"}, false},
		{"ipv4_is_match", []any{"192.168.1.1", "192.168.1.255", 24}, true},
		{"ipv4_is_match", []any{"192.168.1.1", "192.168.1.256"}, nil},

		{"ipv4_is_in_range", []any{"192.168.1.6", "192.168.1.1/24"}, true},
		{"ipv4_is_in_range", []any{"192.168.1.1", "192.168.2.1/24"}, false},
		{"ipv4_is_in_range", []any{"192.168.1.6", "192.168.1.6"}, true},
		{"ipv4_is_in_range", []any{"1.2.3.4", "0.0.0.0/0"}, true},
		{"ipv4_is_in_range", []any{"1.2.3", "0.0.0.0/0"}, nil},
		{"ipv4_is_in_any_range", []any{"192.168.1.6", "192.168.1.1/24", "10.0.0.1/8"}, true},
		{"ipv4_is_in_any_range", []any{"10.1.2.3", bJ(`["192.168.1.1/24","10.0.0.1/8"]`)}, true},
		{"ipv4_is_in_any_range", []any{"8.8.8.8", bJ(`["192.168.1.1/24","10.0.0.1/8"]`)}, false},
		{"ipv4_is_in_any_range", []any{"8.8.8.8", bJ(`[]`)}, false},
		{"ipv4_is_in_any_range", []any{"8.8.8.8", bJ(`["nonsense"]`)}, nil},
		{"ipv4_is_private", []any{"10.1.2.3"}, true},
		{"ipv4_is_private", []any{"172.16.0.1"}, true},
		{"ipv4_is_private", []any{"172.31.255.255"}, true},
		{"ipv4_is_private", []any{"172.32.0.1"}, false},
		{"ipv4_is_private", []any{"192.168.1.1/24"}, true},
		{"ipv4_is_private", []any{"192.168.1.1/15"}, false},
		{"ipv4_is_private", []any{"8.8.8.8"}, false},
		{"ipv4_is_private", []any{"10.0.0"}, nil},
		{"ipv4_is_private", []any{nullStr}, nil},
		{"ipv4_netmask_suffix", []any{"192.168.1.1/24"}, int64(24)},
		{"ipv4_netmask_suffix", []any{"192.168.1.1"}, int64(32)},
		{"ipv4_netmask_suffix", []any{"192.168.1.1/0"}, int64(0)},
		{"ipv4_netmask_suffix", []any{"192.168.1.1/33"}, nil},
		{"ipv4_netmask_suffix", []any{"192.168.1.1/"}, nil},
	})
}

func TestHasIPv4(t *testing.T) {
	bRunCases(t, []bCase{
		{"has_ipv4", []any{"05:04:54 127.0.0.1 GET /favicon.ico 404", "127.0.0.1"}, true},
		{"has_ipv4", []any{"05:04:54 127.0.0.256 GET /favicon.ico 404", "127.0.0.256"}, false},
		{"has_ipv4", []any{"05:04:54127.0.0.1 GET /favicon.ico 404", "127.0.0.1"}, false},
		{"has_ipv4", []any{"from 10.0.0.1, to 10.0.0.2", "10.0.0.2"}, true},
		{"has_ipv4", []any{"(10.0.0.2)", "10.0.0.2"}, true},
		{"has_ipv4", []any{"ip=10.0.0.2.", "10.0.0.2"}, true},
		{"has_ipv4", []any{"version 10.0.0.2.7", "10.0.0.2"}, false},
		{"has_ipv4", []any{"a10.0.0.2", "10.0.0.2"}, false},
		{"has_ipv4", []any{"10.0.0.2x", "10.0.0.2"}, false},
		{"has_ipv4", []any{"10.0.0.20", "10.0.0.2"}, false},
		{"has_ipv4", []any{"héllo 10.0.0.2 wörld", "10.0.0.2"}, true},
		{"has_ipv4", []any{"192.168.1.1/api"}, true},
		{"has_ipv4", []any{"10.0.0.2/login"}, true},
		{"has_ipv4", []any{"/api/v1/users"}, false},
		{"has_ipv4", []any{"1.2.3.4.5"}, false},
		{"has_ipv4", []any{"999.1.1.1"}, false},
		{"has_ipv4", []any{""}, false},
		{"has_ipv4", []any{nullStr}, nil},
		{"has_ipv4", []any{"10.0.0.1", nullStr}, nil},
		{"has_ipv4_prefix", []any{"192.168.0.1", "192.168."}, true},
		{"has_ipv4_prefix", []any{"127.0.0.1 GET", "127.0."}, true},
		{"has_ipv4_prefix", []any{"x 127.0.0.1", "127.0.0."}, true},
		{"has_ipv4_prefix", []any{"127.0.0.1", "127.0"}, false}, // KQL's "invalid IPv4 prefix" example
		{"has_ipv4_prefix", []any{"127.0.0.1", "127.0.0.1"}, true},
		{"has_ipv4_prefix", []any{"127.0.0.12", "127.0.0.1"}, false},
		{"has_ipv4_prefix", []any{"127.0.0.1", "127.1."}, false},
		{"has_ipv4_prefix", []any{"127.0.0.1", "256."}, false},
		{"has_ipv4_prefix", []any{"127.0.0.1", ""}, false},
		// A prefix is a whole address or octets ending with a dot (KQL's
		// page): "10.1." is 10.1.0.0/16 and never a text prefix of
		// "10.12"; "10.1" and "10.12" are no prefixes and match nothing.
		{"has_ipv4_prefix", []any{"10.12.0.1", "10.1"}, false},
		{"has_ipv4_prefix", []any{"10.12.0.1", "10.1."}, false},
		{"has_ipv4_prefix", []any{"10.1.0.1", "10.1."}, true},
		{"has_ipv4_prefix", []any{"10.1.0.1", "10.1"}, false},
		{"has_ipv4_prefix", []any{"10.12.0.1", "10.12"}, false},
		{"has_ipv4_prefix", []any{"10.1.2.34", "10.1.2.3"}, false},
		{"has_ipv4_prefix", []any{"10.1.2.3", "10.1.2.3."}, false},
		{"has_ipv4_prefix", []any{"10.1.2.3", "10.1.2.3.4"}, false},
		{"has_ipv4_prefix", []any{"10.1.2.3", " 10. "}, true},
		{"has_any_ipv4_prefix", []any{"10.12.0.1", bJ(`["10.1","192."]`)}, false},
		{"has_any_ipv4_prefix", []any{"10.12.0.1", "10.1", "10.1."}, false},
		{"has_any_ipv4_prefix", []any{"src=10.1.9.9", "10.12", "10.1."}, true},
		{"has_any_ipv4_prefix", []any{"05:04:54 127.0.0.1 GET", "127.0"}, false},
		{"has_any_ipv4_prefix", []any{"05:04:54 127.0.0.1 GET", bJ(`["127.0.","192.168."]`)}, true},
		{"has_any_ipv4", []any{"192.168.1.1", bJ(`["192.168.1.1","192.168.0.0/16"]`)}, true},
		{"has_any_ipv4", []any{"conn 10.0.0.5 ok", "1.1.1.1", "10.0.0.0/8"}, true},
		{"has_any_ipv4", []any{"conn 10.0.0.5 ok", bJ(`["1.1.1.1","bad"]`)}, false},
		{"has_any_ipv4", []any{"no address", bJ(`["1.1.1.1"]`)}, false},
		{"has_any_ipv4_prefix", []any{"ip 10.1.2.3", bJ(`["192.168.","10."]`)}, true},
		{"has_any_ipv4_prefix", []any{"ip 11.1.2.3", "192.168.", "10."}, false},
	})
}

func TestIPv6Functions(t *testing.T) {
	bRunCases(t, []bCase{
		{"ipv6_compare", []any{"::ffff:7f00:1", "127.0.0.1"}, int64(0)},
		{"ipv6_compare", []any{"fe80::85d:e82c:9446:7994", "fe80::85d:e82c:9446:7995"}, int64(-1)},
		{"ipv6_compare", []any{"fe80::85d:e82c:9446:7995", "fe80::85d:e82c:9446:7994"}, int64(1)},
		{"ipv6_compare", []any{"fe80::85d:e82c:9446:7994/127", "fe80::85d:e82c:9446:7995/127"}, int64(0)},
		{"ipv6_compare", []any{"fe80::85d:e82c:9446:7994", "fe80::85d:e82c:9446:7995", 127}, int64(0)},
		{"ipv6_compare", []any{"2001:db8::1", "2001:db9::1", 16}, int64(0)},
		{"ipv6_compare", []any{"2001:db8::1", "2001:db9::1", 32}, int64(-1)},
		{"ipv6_compare", []any{"FE80::1%eth0", "fe80::1"}, int64(0)},
		{"ipv6_compare", []any{"fe80::1", "fe80::g"}, nil},
		{"ipv6_compare", []any{"fe80::1", "fe80::1", 129}, nil},
		{"ipv6_is_match", []any{"::ffff:7f00:1", "127.0.0.1"}, true},
		{"ipv6_is_match", []any{"fe80::85d:e82c:9446:7994", "fe80::85d:e82c:9446:7995"}, false},
		{"ipv6_is_match", []any{"fe80::85d:e82c:9446:7994/127", "fe80::85d:e82c:9446:7995/127"}, true},
		{"ipv6_is_match", []any{"192.168.1.1/24", "192.168.1.255"}, true},
		{"ipv6_is_match", []any{nullStr, "::1"}, nil},
		{"ipv6_is_in_range", []any{"2001:db8::1", "2001:db8::/32"}, true},
		{"ipv6_is_in_range", []any{"2001:db9::1", "2001:db8::/32"}, false},
		{"ipv6_is_in_range", []any{"::ffff:10.0.0.1", "::ffff:0:0/96"}, true},
		{"ipv6_is_in_range", []any{"10.0.0.1", "10.0.0.0/8"}, true},
		{"ipv6_is_in_range", []any{"11.0.0.1", "10.0.0.0/8"}, false},
		{"ipv6_is_in_range", []any{"2001:db8::1", "2001:db8::/129"}, nil},
		{"ipv6_is_in_any_range", []any{"2001:db8::1", bJ(`["2001:db8::/32","fd00::/8"]`)}, true},
		{"ipv6_is_in_any_range", []any{"fd00::abcd", bJ(`["2001:db8::/32","fd00::/8"]`)}, true},
		{"ipv6_is_in_any_range", []any{"2002::1", bJ(`["2001:db8::/32","fd00::/8"]`)}, false},
		{"ipv6_is_in_any_range", []any{"::ffff:10.0.0.1", "::ffff:0:0/96", "fc00::/7"}, true},
		{"ipv6_is_in_any_range", []any{"zzz", bJ(`["::/0"]`)}, nil},
	})
}

func TestIPErrors(t *testing.T) {
	bResultErr(t, "geo_info_from_ip_address", "aplite ships no GeoIP database", vector.String)
	if _, err := Lookup("geo_info_from_ip_address").Eval(&Context{}, []*vector.Vector{xCol(vector.String, "1.1.1.1")}, Dense(1)); err == nil {
		t.Error("geo_info_from_ip_address evaluated without a database")
	}
	bResultErr(t, "parse_ipv4_mask", "argument 2 of parse_ipv4_mask must be long, got string", vector.String, vector.String)
	bResultErr(t, "ipv4_compare", "argument 3 of ipv4_compare must be long", vector.String, vector.String, vector.Bool)
}

// TestIPColumns checks the dictionary and per-row paths give the same
// answers as the one-row cases.
func TestIPColumns(t *testing.T) {
	d := xDict("10.0.0.1", "8.8.8.8", nil, "10.0.0.1", "bad")
	got := bCall(t, "ipv4_is_private", 5, d)
	want := []any{true, false, nil, true, nil}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("ipv4_is_private dict row %d = %v, want %v", i, got[i], want[i])
		}
	}
	src := xCol(vector.String, "a 10.0.0.1", "b 10.0.0.2", "c")
	targets := xCol(vector.String, "10.0.0.1", "10.0.0.1", nil)
	got = bCall(t, "has_ipv4", 3, src, targets)
	if got[0] != true || got[1] != false || got[2] != nil {
		t.Errorf("has_ipv4 per-row targets = %v", got)
	}
	got = bCall(t, "has_ipv4", 3, src, xConst(vector.String, "10.0.0.2", 3))
	if got[0] != false || got[1] != true || got[2] != false {
		t.Errorf("has_ipv4 const target = %v", got)
	}
}

func benchIPColumn(n int) *vector.Vector {
	v := vector.New(vector.String, n)
	for i := 0; i < n; i++ {
		switch i % 3 {
		case 0:
			v.AppendStr(fmt.Sprintf("10.%d.%d.%d", i%256, (i/7)%256, (i/13)%256))
		case 1:
			v.AppendStr(fmt.Sprintf("%d.%d.0.1", 20+i%200, i%256))
		default:
			v.AppendStr(fmt.Sprintf("GET /api/v1/items/%d HTTP/1.1 from 192.168.%d.%d", i, i%256, (i/3)%256))
		}
	}
	return v
}

func benchIPFunc(b *testing.B, name string, args ...*vector.Vector) {
	f := Lookup(name)
	n := args[0].Len
	var bytes int64
	for i := 0; i < n; i++ {
		bytes += int64(len(args[0].Str(i)))
	}
	b.SetBytes(bytes)
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if _, err := f.Eval(&Context{}, args, Dense(n)); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkHasIPv4(b *testing.B) {
	col := benchIPColumn(vector.BatchSize)
	benchIPFunc(b, "has_ipv4", col, xConst(vector.String, "192.168.1.1", col.Len))
}

func BenchmarkIPv4IsPrivate(b *testing.B) {
	benchIPFunc(b, "ipv4_is_private", benchIPColumn(vector.BatchSize))
}
