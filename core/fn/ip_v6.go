package fn

// IPv6 address functions: ipv6_compare, ipv6_is_match, ipv6_is_in_range
// and ipv6_is_in_any_range. They accept IPv4 addresses too, mapped into
// ::ffff:0:0/96, so ipv6_compare('::ffff:10.0.0.1', '10.0.0.1') is 0.
// Addresses that do not parse give null.

import (
	"github.com/aplite/aplite/vector"
)

func init() {
	Register(&Func{Name: "ipv6_compare", Family: "ip", MinArgs: 2, MaxArgs: 3,
		Result: Sig("ipv6_compare", vector.Int, KString, KString, KInt), Eval: evalIPv6Compare(false),
		Doc: "Compares two IPv6 (or IPv4) addresses, optionally on a prefix: -1, 0 or 1."})
	Register(&Func{Name: "ipv6_is_match", Family: "ip", MinArgs: 2, MaxArgs: 3,
		Result: Sig("ipv6_is_match", vector.Bool, KString, KString, KInt), Eval: evalIPv6Compare(true),
		Doc: "True when two IPv6 (or IPv4) addresses are equal, optionally on a prefix."})
	Register(&Func{Name: "ipv6_is_in_range", Family: "ip", MinArgs: 2, MaxArgs: 2,
		Result: Sig("ipv6_is_in_range", vector.Bool, KString, KString), Eval: evalIPv6InRange,
		Doc: "True when an IPv6 address lies in a range given as an address or CIDR network."})
	Register(&Func{Name: "ipv6_is_in_any_range", Family: "ip", MinArgs: 2, MaxArgs: -1,
		Result: Sig("ipv6_is_in_any_range", vector.Bool, KString, KAny), Eval: evalIPv6InAnyRange,
		Doc: "True when an IPv6 address lies in any of the ranges (arguments or one dynamic array)."})
}

func ipv6At(v *vector.Vector, i int) (ipv6Net, bool) {
	s, ok := ToString(v, i)
	if !ok {
		return ipv6Net{}, false
	}
	return ipv6Parse(s)
}

func evalIPv6Compare(match bool) func(*Context, []*vector.Vector, Rows) (*vector.Vector, error) {
	return func(_ *Context, args []*vector.Vector, n Rows) (*vector.Vector, error) {
		cmp := func(i int) (int, bool) {
			a, ok1 := ipv6At(args[0], i)
			b, ok2 := ipv6At(args[1], i)
			if !ok1 || !ok2 {
				return 0, false
			}
			bits := min(a.bits, b.bits)
			if len(args) > 2 {
				p, ok := ipPrefixAt(args[2], i, 128)
				if !ok {
					return 0, false
				}
				bits = min(bits, p)
			}
			return ipv6Compare(a, b, bits), true
		}
		return compareOrMatch(match, args, n, cmp), nil
	}
}

func evalIPv6InRange(_ *Context, args []*vector.Vector, n Rows) (*vector.Vector, error) {
	return evalIPv6Ranges(args, n, func(i int) ([]ipv6Net, bool) {
		r, ok := ipv6At(args[1], i)
		return []ipv6Net{r}, ok
	})
}

func evalIPv6InAnyRange(_ *Context, args []*vector.Vector, n Rows) (*vector.Vector, error) {
	return evalIPv6Ranges(args, n, func(i int) ([]ipv6Net, bool) {
		return parseNets(ipListAt(args[1:], i), ipv6Parse)
	})
}

// evalIPv6Ranges is evalIPv4Ranges for IPv6: constant ranges are parsed
// once per batch.
func evalIPv6Ranges(args []*vector.Vector, n Rows, rangesAt func(i int) ([]ipv6Net, bool)) (*vector.Vector, error) {
	in := func(s string, nets []ipv6Net) (bool, bool) {
		a, ok := ipv6Parse(s)
		if !ok {
			return false, false
		}
		for _, r := range nets {
			if r.contains(a) {
				return true, true
			}
		}
		return false, true
	}
	if AllConst(args[1:]...) {
		nets, ok := rangesAt(0)
		if !ok {
			return Nulls(vector.Bool, n.N), nil
		}
		return ipMapStrings(vector.Bool, args[0], n, func(s string) (bool, bool) { return in(s, nets) }), nil
	}
	return Each(vector.Bool, args, n, func(i int) (bool, bool) {
		s, ok := ToString(args[0], i)
		if !ok {
			return false, false
		}
		nets, ok := rangesAt(i)
		if !ok {
			return false, false
		}
		return in(s, nets)
	}), nil
}
