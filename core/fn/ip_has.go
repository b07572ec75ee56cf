package fn

// Searching text for IPv4 addresses: has_ipv4, has_ipv4_prefix,
// has_any_ipv4 and has_any_ipv4_prefix. An address counts only when it
// stands on its own in the text (see ipv4Next), so "05:04:54127.0.0.1"
// does not contain 127.0.0.1. Every form reduces to "does the text hold
// an address in one of these networks", and the networks are parsed once
// per batch when they are constants, which is how they are written.

import (
	"github.com/aplite/aplite/vector"
)

func init() {
	Register(&Func{Name: "has_ipv4", Family: "ip", MinArgs: 1, MaxArgs: 2,
		Result: Sig("has_ipv4", vector.Bool, KString, KString), Eval: evalHasIPv4(ipv4Parse),
		Doc: "True when the text contains the given IPv4 address (or, with one argument, any valid IPv4 address)."})
	Register(&Func{Name: "has_ipv4_prefix", Family: "ip", MinArgs: 2, MaxArgs: 2,
		Result: Sig("has_ipv4_prefix", vector.Bool, KString, KString), Eval: evalHasIPv4(ipv4ParsePrefix),
		Doc: "True when the text contains an IPv4 address starting with the prefix: a whole address, or octets ending with a dot (\"192.168.\"); \"192.168\" is no prefix and matches nothing (KQL's page; Axiom's examples use the dotted form)."})
	Register(&Func{Name: "has_any_ipv4", Family: "ip", MinArgs: 2, MaxArgs: -1,
		Result: Sig("has_any_ipv4", vector.Bool, KString, KAny), Eval: evalHasIPv4(ipv4Parse),
		Doc: "True when the text contains any of the IPv4 addresses or CIDR networks (arguments or a dynamic array)."})
	Register(&Func{Name: "has_any_ipv4_prefix", Family: "ip", MinArgs: 2, MaxArgs: -1,
		Result: Sig("has_any_ipv4_prefix", vector.Bool, KString, KAny), Eval: evalHasIPv4(ipv4ParsePrefix),
		Doc: "True when the text contains an IPv4 address starting with any of the prefixes (each a whole address or octets ending with a dot, as has_ipv4_prefix)."})
}

// ipv4Set is what the text is searched for: any address in one of nets,
// or any address at all when anyAddr is set.
type ipv4Set struct {
	nets    []ipv4Net
	anyAddr bool
}

// ipv4InText reports whether s holds a standalone address in the set.
func ipv4InText(s string, set *ipv4Set) bool {
	for p := 0; p < len(s); {
		ip, next, ok := ipv4Next(s, p)
		if !ok {
			return false
		}
		if set.anyAddr {
			return true
		}
		for _, n := range set.nets {
			if n.contains(ip) {
				return true
			}
		}
		p = next
	}
	return false
}

// ipv4SetAt builds the search set from the target arguments of row i.
// Targets that do not parse are skipped (has_ipv4(s, "127.0.0.256") is
// false, not an error); a null target makes the row null.
func ipv4SetAt(targets []*vector.Vector, i int, parse func(string) (ipv4Net, bool)) (*ipv4Set, bool) {
	set := &ipv4Set{}
	for _, t := range targets {
		if t.IsNull(i) {
			return nil, false
		}
	}
	for _, x := range ipListAt(targets, i) {
		if s, ok := x.(string); ok {
			if n, ok := parse(s); ok {
				set.nets = append(set.nets, n)
			}
		}
	}
	return set, true
}

func evalHasIPv4(parse func(string) (ipv4Net, bool)) func(*Context, []*vector.Vector, Rows) (*vector.Vector, error) {
	return func(_ *Context, args []*vector.Vector, n Rows) (*vector.Vector, error) {
		src, targets := args[0], args[1:]
		if len(targets) == 0 {
			set := &ipv4Set{anyAddr: true}
			return ipMapStrings(vector.Bool, src, n, func(s string) (bool, bool) { return ipv4InText(s, set), true }), nil
		}
		if AllConst(targets...) {
			set, ok := ipv4SetAt(targets, 0, parse)
			if !ok {
				return Nulls(vector.Bool, n.N), nil
			}
			return ipMapStrings(vector.Bool, src, n, func(s string) (bool, bool) { return ipv4InText(s, set), true }), nil
		}
		return Each(vector.Bool, args, n, func(i int) (bool, bool) {
			s, ok := ToString(src, i)
			if !ok {
				return false, false
			}
			set, ok := ipv4SetAt(targets, i, parse)
			if !ok {
				return false, false
			}
			return ipv4InText(s, set), true
		}), nil
	}
}
