package fn

// IPv4 address functions: parse_ipv4, parse_ipv4_mask, format_ipv4,
// format_ipv4_mask, ipv4_compare, ipv4_is_match, ipv4_is_in_range,
// ipv4_is_in_any_range, ipv4_is_private, ipv4_netmask_suffix, and
// geo_info_from_ip_address (which aplite cannot serve). An address that
// does not parse gives null, as KQL documents; format_ipv4 gives "".

import (
	"errors"
	"strconv"

	"github.com/aplite/aplite/vector"
)

func init() {
	Register(&Func{Name: "parse_ipv4", Family: "ip", MinArgs: 1, MaxArgs: 1,
		Result: Sig("parse_ipv4", vector.Int, KString), Eval: evalParseIPv4,
		Doc: "An IPv4 address (optionally with /prefix, which masks it) as a long."})
	Register(&Func{Name: "parse_ipv4_mask", Family: "ip", MinArgs: 2, MaxArgs: 2,
		Result: Sig("parse_ipv4_mask", vector.Int, KString, KInt), Eval: evalParseIPv4Mask,
		Doc: "An IPv4 address masked to a prefix length, as a long."})
	Register(&Func{Name: "format_ipv4", Family: "ip", MinArgs: 1, MaxArgs: 2,
		Result: Sig("format_ipv4", vector.String, Of(vector.String, vector.Int, vector.Float), KInt), Eval: evalFormatIPv4,
		Doc: "Dotted-decimal form of an IPv4 address given as a long or string, optionally masked; \"\" on failure."})
	Register(&Func{Name: "format_ipv4_mask", Family: "ip", MinArgs: 1, MaxArgs: 2,
		Result: Sig("format_ipv4_mask", vector.String, Of(vector.String, vector.Int, vector.Float), KInt), Eval: evalFormatIPv4Mask,
		Doc: "format_ipv4_mask(24) is the netmask 255.255.255.0; format_ipv4_mask(ip, n) is the network in CIDR form."})
	Register(&Func{Name: "ipv4_compare", Family: "ip", MinArgs: 2, MaxArgs: 3,
		Result: Sig("ipv4_compare", vector.Int, KString, KString, KInt), Eval: ipv4.compare(false),
		Doc: "Compares two IPv4 addresses (optionally on a prefix): -1, 0 or 1."})
	Register(&Func{Name: "ipv4_is_match", Family: "ip", MinArgs: 2, MaxArgs: 3,
		Result: Sig("ipv4_is_match", vector.Bool, KString, KString, KInt), Eval: ipv4.compare(true),
		Doc: "True when two IPv4 addresses are equal (optionally on a prefix)."})
	Register(&Func{Name: "ipv4_is_in_range", Family: "ip", MinArgs: 2, MaxArgs: 2,
		Result: Sig("ipv4_is_in_range", vector.Bool, KString, KString), Eval: ipv4.inRange,
		Doc: "True when an IPv4 address lies in a range given as an address or CIDR network."})
	Register(&Func{Name: "ipv4_is_in_any_range", Family: "ip", MinArgs: 2, MaxArgs: -1,
		Result: Sig("ipv4_is_in_any_range", vector.Bool, KString, KAny), Eval: ipv4.inAnyRange,
		Doc: "True when an IPv4 address lies in any of the ranges (arguments or one dynamic array)."})
	Register(&Func{Name: "ipv4_is_private", Family: "ip", MinArgs: 1, MaxArgs: 1,
		Result: Sig("ipv4_is_private", vector.Bool, KString), Eval: evalIPv4IsPrivate,
		Doc: "True when an IPv4 address (or whole CIDR network) is in 10/8, 172.16/12 or 192.168/16."})
	Register(&Func{Name: "ipv4_netmask_suffix", Family: "ip", MinArgs: 1, MaxArgs: 1,
		Result: Sig("ipv4_netmask_suffix", vector.Int, KString), Eval: evalIPv4NetmaskSuffix,
		Doc: "The prefix length of an IPv4 address in CIDR notation (32 when it has none)."})
	Register(&Func{Name: "geo_info_from_ip_address", Family: "ip", MinArgs: 1, MaxArgs: 1,
		Result: func([]vector.Type) (vector.Type, error) { return vector.Null, errGeoIP },
		Eval:   func(*Context, []*vector.Vector, Rows) (*vector.Vector, error) { return nil, errGeoIP },
		Doc:    "Not available: aplite ships no GeoIP database."})
}

var errGeoIP = errors.New("geo_info_from_ip_address is not available: aplite ships no GeoIP database")

// ipPrefixAt reads a prefix-length argument in [0, max].
func ipPrefixAt(v *vector.Vector, i, max int) (int, bool) {
	p, ok := ToInt(v, i)
	if !ok || p < 0 || p > int64(max) {
		return 0, false
	}
	return int(p), true
}

func evalParseIPv4(_ *Context, args []*vector.Vector, n Rows) (*vector.Vector, error) {
	return ipMapStrings(vector.Int, args[0], n, func(s string) (int64, bool) {
		a, ok := ipv4Parse(s)
		return int64(a.ip & ipv4Mask(a.bits)), ok
	}), nil
}

func evalParseIPv4Mask(_ *Context, args []*vector.Vector, n Rows) (*vector.Vector, error) {
	return Each(vector.Int, args, n, func(i int) (int64, bool) {
		a, ok1 := ipv4.at(args[0], i)
		p, ok2 := ipPrefixAt(args[1], i, 32)
		if !ok1 || !ok2 {
			return 0, false
		}
		return int64(a.ip & ipv4Mask(min(a.bits, p))), true
	}), nil
}

// ipv4FromValue reads an address given as a string (with optional
// prefix) or as a number in [0, 2^32).
func ipv4FromValue(v *vector.Vector, i int) (ipv4Net, bool) {
	if v.Type == vector.String {
		return ipv4.at(v, i)
	}
	if v.Type == vector.Dynamic {
		if s, isStr := v.Dyn(i).(string); isStr {
			return ipv4Parse(s)
		}
	}
	x, ok := ToInt(v, i)
	if !ok || x < 0 || x > 0xFFFFFFFF {
		return ipv4Net{}, false
	}
	return ipv4Net{ip: uint32(x), bits: 32}, true
}

// evalFormatIPv4 returns "" (not null) for an address that does not
// convert, as Axiom's page says; a null argument stays null.
func evalFormatIPv4(_ *Context, args []*vector.Vector, n Rows) (*vector.Vector, error) {
	return Each(vector.String, args, n, func(i int) (string, bool) {
		if args[0].IsNull(i) {
			return "", false
		}
		a, ok := ipv4FromValue(args[0], i)
		if !ok {
			return "", true
		}
		if len(args) > 1 {
			if args[1].IsNull(i) {
				return "", false
			}
			p, ok := ipPrefixAt(args[1], i, 32)
			if !ok {
				return "", true
			}
			a.bits = min(a.bits, p)
		}
		return ipv4Format(a.ip & ipv4Mask(a.bits)), true
	}), nil
}

// evalFormatIPv4Mask serves both documented forms: Axiom's
// format_ipv4_mask(prefixLength), a lone integer in [0, 32], gives the
// dotted netmask; KQL's format_ipv4_mask(ip [, prefix]) gives the masked
// network as "a.b.c.d/n". Failures give "".
func evalFormatIPv4Mask(_ *Context, args []*vector.Vector, n Rows) (*vector.Vector, error) {
	return Each(vector.String, args, n, func(i int) (string, bool) {
		if args[0].IsNull(i) {
			return "", false
		}
		if len(args) == 1 && args[0].Type == vector.Int {
			if p := args[0].Int(i); p >= 0 && p <= 32 {
				return ipv4Format(ipv4Mask(int(p))), true
			}
		}
		a, ok := ipv4FromValue(args[0], i)
		if !ok {
			return "", true
		}
		if len(args) > 1 {
			if args[1].IsNull(i) {
				return "", false
			}
			p, ok := ipPrefixAt(args[1], i, 32)
			if !ok {
				return "", true
			}
			a.bits = min(a.bits, p)
		}
		return ipv4Format(a.ip&ipv4Mask(a.bits)) + "/" + strconv.Itoa(a.bits), true
	}), nil
}

// ipListAt flattens list arguments: each argument is one value, or a
// dynamic array of values.
func ipListAt(args []*vector.Vector, i int) []any {
	var out []any
	for _, a := range args {
		if arr, ok := arrAt(a, i); ok {
			out = append(out, arr...)
			continue
		}
		if s, ok := ToString(a, i); ok {
			out = append(out, s)
		}
	}
	return out
}

// The private ranges of RFC 1918.
var ipv4Private = [...]ipv4Net{
	{ip: 10 << 24, bits: 8},
	{ip: 172<<24 | 16<<16, bits: 12},
	{ip: 192<<24 | 168<<16, bits: 16},
}

// ipv4IsPrivate reports whether every address of the network is private.
func ipv4IsPrivate(a ipv4Net) bool {
	for _, p := range ipv4Private {
		if a.bits >= p.bits && p.contains(a.ip) {
			return true
		}
	}
	return false
}

func evalIPv4IsPrivate(_ *Context, args []*vector.Vector, n Rows) (*vector.Vector, error) {
	return ipMapStrings(vector.Bool, args[0], n, func(s string) (bool, bool) {
		a, ok := ipv4Parse(s)
		return ok && ipv4IsPrivate(a), ok
	}), nil
}

func evalIPv4NetmaskSuffix(_ *Context, args []*vector.Vector, n Rows) (*vector.Vector, error) {
	return ipMapStrings(vector.Int, args[0], n, func(s string) (int64, bool) {
		a, ok := ipv4Parse(s)
		return int64(a.bits), ok
	}), nil
}
