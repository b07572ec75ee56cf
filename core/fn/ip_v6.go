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
		Result: Sig("ipv6_compare", vector.Int, KString, KString, KInt), Eval: ipv6.compare(false),
		Doc: "Compares two IPv6 (or IPv4) addresses, optionally on a prefix: -1, 0 or 1."})
	Register(&Func{Name: "ipv6_is_match", Family: "ip", MinArgs: 2, MaxArgs: 3,
		Result: Sig("ipv6_is_match", vector.Bool, KString, KString, KInt), Eval: ipv6.compare(true),
		Doc: "True when two IPv6 (or IPv4) addresses are equal, optionally on a prefix."})
	Register(&Func{Name: "ipv6_is_in_range", Family: "ip", MinArgs: 2, MaxArgs: 2,
		Result: Sig("ipv6_is_in_range", vector.Bool, KString, KString), Eval: ipv6.inRange,
		Doc: "True when an IPv6 address lies in a range given as an address or CIDR network."})
	Register(&Func{Name: "ipv6_is_in_any_range", Family: "ip", MinArgs: 2, MaxArgs: -1,
		Result: Sig("ipv6_is_in_any_range", vector.Bool, KString, KAny), Eval: ipv6.inAnyRange,
		Doc: "True when an IPv6 address lies in any of the ranges (arguments or one dynamic array)."})
}
