package fn

// The address functions that IPv4 and IPv6 both have (compare, is_match,
// is_in_range, is_in_any_range) are written once, over ipFamily; the
// families differ only in how an address parses, how wide it is and how
// two addresses compare on a prefix.

import "github.com/aplite/aplite/vector"

// ipNet is an address with its prefix length (a network), of one family.
type ipNet[N any] interface {
	// prefix is the prefix length: the address's width when it has none.
	prefix() int
	// compareOn compares the address with b on their first bits bits:
	// -1, 0 or 1.
	compareOn(b N, bits int) int
	// holds reports whether the network holds the address a.
	holds(a N) bool
}

// ipFamily is one address family's parser and width.
type ipFamily[N ipNet[N]] struct {
	width int
	parse func(string) (N, bool)
}

var (
	ipv4 = ipFamily[ipv4Net]{width: 32, parse: ipv4Parse}
	ipv6 = ipFamily[ipv6Net]{width: 128, parse: ipv6Parse}
)

func (n ipv4Net) prefix() int { return n.bits }
func (n ipv4Net) compareOn(b ipv4Net, bits int) int {
	m := ipv4Mask(bits)
	return arrCmp(int64(n.ip&m), int64(b.ip&m))
}
func (n ipv4Net) holds(a ipv4Net) bool { return n.contains(a.ip) }

func (n ipv6Net) prefix() int                       { return n.bits }
func (n ipv6Net) compareOn(b ipv6Net, bits int) int { return ipv6Compare(n, b, bits) }
func (n ipv6Net) holds(a ipv6Net) bool              { return n.contains(a) }

// at parses row i of v as an address with optional prefix.
func (f ipFamily[N]) at(v *vector.Vector, i int) (N, bool) {
	s, ok := ToString(v, i)
	if !ok {
		var zero N
		return zero, false
	}
	return f.parse(s)
}

// compare returns X_compare (match=false) or X_is_match (match=true).
// The comparison uses the shortest of the two addresses' own prefixes
// and the prefix argument.
func (f ipFamily[N]) compare(match bool) func(*Context, []*vector.Vector, Rows) (*vector.Vector, error) {
	return func(_ *Context, args []*vector.Vector, n Rows) (*vector.Vector, error) {
		cmp := func(i int) (int, bool) {
			a, ok1 := f.at(args[0], i)
			b, ok2 := f.at(args[1], i)
			if !ok1 || !ok2 {
				return 0, false
			}
			bits := min(a.prefix(), b.prefix())
			if len(args) > 2 {
				p, ok := ipPrefixAt(args[2], i, f.width)
				if !ok {
					return 0, false
				}
				bits = min(bits, p)
			}
			return a.compareOn(b, bits), true
		}
		return compareOrMatch(match, args, n, cmp), nil
	}
}

// inRange is X_is_in_range. A constant range is parsed once per batch,
// the usual shape of where ipv4_is_in_range(client_ip, "10.0.0.0/8").
func (f ipFamily[N]) inRange(_ *Context, args []*vector.Vector, n Rows) (*vector.Vector, error) {
	return f.ranges(args, n, func(i int) ([]N, bool) {
		r, ok := f.at(args[1], i)
		return []N{r}, ok
	})
}

// inAnyRange is X_is_in_any_range: the ranges are further arguments or
// one dynamic array. A range that does not parse makes the row null,
// like a bad address.
func (f ipFamily[N]) inAnyRange(_ *Context, args []*vector.Vector, n Rows) (*vector.Vector, error) {
	return f.ranges(args, n, func(i int) ([]N, bool) {
		return parseNets(ipListAt(args[1:], i), f.parse)
	})
}

// ranges tests args[0] against the networks rangesAt(i) reads from the
// other arguments, reading them once when they are constants.
func (f ipFamily[N]) ranges(args []*vector.Vector, n Rows, rangesAt func(i int) ([]N, bool)) (*vector.Vector, error) {
	in := func(s string, nets []N) (bool, bool) {
		a, ok := f.parse(s)
		if !ok {
			return false, false
		}
		for _, r := range nets {
			if r.holds(a) {
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
