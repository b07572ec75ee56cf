package fn

// Parsing IP addresses without allocating. IPv4 gets a hand-written
// parser because the IPv4 functions run over whole columns of log text
// (has_ipv4, ipv4_is_private) and must accept what KQL accepts (an
// optional /prefix, octets with leading zeros); IPv6 goes through
// net/netip, which does not import the net package and so is allowed in
// the core.

import (
	"net/netip"
	"strings"

	"github.com/aplite/aplite/vector"
)

// ipv4Net is an IPv4 address with a prefix length (32 for a plain
// address).
type ipv4Net struct {
	ip   uint32
	bits int
}

// ipv4Mask returns the netmask of a prefix length in [0, 32].
func ipv4Mask(bits int) uint32 {
	if bits <= 0 {
		return 0
	}
	if bits >= 32 {
		return ^uint32(0)
	}
	return ^uint32(0) << (32 - bits)
}

// contains reports whether ip lies in the network.
func (n ipv4Net) contains(ip uint32) bool {
	m := ipv4Mask(n.bits)
	return ip&m == n.ip&m
}

// ipv4Parse parses "a.b.c.d" or "a.b.c.d/n" (surrounding spaces
// allowed).
func ipv4Parse(s string) (ipv4Net, bool) {
	if len(s) > 0 && (s[0] <= ' ' || s[len(s)-1] <= ' ') {
		s = strings.TrimSpace(s)
	}
	ip, end, ok := ipv4Octets(s, 0)
	if !ok {
		return ipv4Net{}, false
	}
	if end == len(s) {
		return ipv4Net{ip: ip, bits: 32}, true
	}
	if s[end] != '/' {
		return ipv4Net{}, false
	}
	bits, ok := ipSmallInt(s[end+1:], 32)
	return ipv4Net{ip: ip, bits: bits}, ok
}

// ipv4Octets parses four dot-separated decimal octets of 1 to 3 digits
// starting at s[p], returning the address and the index after it. It does
// not look past the fourth octet's digits.
func ipv4Octets(s string, p int) (ip uint32, end int, ok bool) {
	for k := 0; k < 4; k++ {
		if k > 0 {
			if p >= len(s) || s[p] != '.' {
				return 0, p, false
			}
			p++
		}
		v, digits := 0, 0
		for p < len(s) && ipIsDigit(s[p]) && digits < 4 {
			v = v*10 + int(s[p]-'0')
			p++
			digits++
		}
		if digits == 0 || digits > 3 || v > 255 {
			return 0, p, false
		}
		ip = ip<<8 | uint32(v)
	}
	return ip, p, true
}

// ipSmallInt parses a decimal in [0, max] (a prefix length).
func ipSmallInt(s string, max int) (int, bool) {
	s = strings.TrimSpace(s)
	if s == "" || len(s) > 3 {
		return 0, false
	}
	v := 0
	for i := 0; i < len(s); i++ {
		if !ipIsDigit(s[i]) {
			return 0, false
		}
		v = v*10 + int(s[i]-'0')
	}
	if v > max {
		return 0, false
	}
	return v, true
}

// ipv4ParsePrefix parses the prefix argument of has_ipv4_prefix as KQL's
// page defines a valid one: a whole address ("192.168.1.11"), or one to
// three octets ending with a dot ("192.", "192.168.", "192.168.1."),
// meaning the addresses that start with those octets. Anything else,
// "127.0" among them, is not a prefix and matches nothing (KQL's example
// answers false); Axiom's page shows the dotted forms in its examples.
func ipv4ParsePrefix(s string) (ipv4Net, bool) {
	s = strings.TrimSpace(s)
	dotted := strings.HasSuffix(s, ".")
	s = strings.TrimSuffix(s, ".")
	if n := strings.Count(s, ".") + 1; dotted == (n == 4) {
		return ipv4Net{}, false
	}
	var ip uint32
	k := 0
	for part := range strings.SplitSeq(s, ".") {
		v, ok := ipSmallInt(part, 255)
		if !ok || k == 4 {
			return ipv4Net{}, false
		}
		ip = ip<<8 | uint32(v)
		k++
	}
	return ipv4Net{ip: ip << (8 * (4 - k)), bits: 8 * k}, true
}

func ipIsDigit(c byte) bool { return c >= '0' && c <= '9' }

func ipIsAlnum(c byte) bool {
	return ipIsDigit(c) || (c|0x20 >= 'a' && c|0x20 <= 'z')
}

// ipv4Next finds the next IPv4 address in text at or after p that stands
// on its own: not glued to a letter or digit on either side and not part
// of a longer dotted run such as a version number 1.2.3.4.5. It returns
// the address and the index to continue from.
func ipv4Next(s string, p int) (ip uint32, next int, ok bool) {
	for ; p < len(s); p++ {
		if !ipIsDigit(s[p]) || (p > 0 && (ipIsAlnum(s[p-1]) || s[p-1] == '.')) {
			continue
		}
		ip, end, valid := ipv4Octets(s, p)
		if !valid {
			continue
		}
		if end < len(s) && (ipIsAlnum(s[end]) || (s[end] == '.' && end+1 < len(s) && ipIsDigit(s[end+1]))) {
			continue
		}
		return ip, end, true
	}
	return 0, len(s), false
}

// ipv4Format renders an address in dotted-decimal form.
func ipv4Format(ip uint32) string {
	var b [15]byte
	out := b[:0]
	for k := 3; k >= 0; k-- {
		o := byte(ip >> (8 * k))
		if o >= 100 {
			out = append(out, '0'+o/100)
		}
		if o >= 10 {
			out = append(out, '0'+o/10%10)
		}
		out = append(out, '0'+o%10)
		if k > 0 {
			out = append(out, '.')
		}
	}
	return string(out)
}

// ipv6Net is a 128-bit address (IPv4 mapped into ::ffff:0:0/96) with a
// prefix length.
type ipv6Net struct {
	hi, lo uint64
	bits   int
}

// ipv6Parse parses an IPv6 or IPv4 address with an optional /prefix. An
// IPv4 address and its prefix are mapped into ::ffff:0:0/96, so
// 10.0.0.0/8 becomes ::ffff:10.0.0.0/104; a zone (%eth0) is ignored.
func ipv6Parse(s string) (ipv6Net, bool) {
	s = strings.TrimSpace(s)
	addr, suffix, hasSuffix := strings.Cut(s, "/")
	a, err := netip.ParseAddr(addr)
	if err != nil {
		return ipv6Net{}, false
	}
	bits, max := 128, 128
	if a.Is4() {
		max = 32
	}
	if hasSuffix {
		var ok bool
		if bits, ok = ipSmallInt(suffix, max); !ok {
			return ipv6Net{}, false
		}
		if a.Is4() {
			bits += 96
		}
	}
	b := a.As16()
	return ipv6Net{hi: beUint64(b[:8]), lo: beUint64(b[8:]), bits: bits}, true
}

func beUint64(b []byte) uint64 {
	var v uint64
	for _, c := range b[:8] {
		v = v<<8 | uint64(c)
	}
	return v
}

// masked returns the address with all but the first bits bits cleared.
func (n ipv6Net) masked(bits int) (hi, lo uint64) {
	switch {
	case bits <= 0:
		return 0, 0
	case bits < 64:
		return n.hi & (^uint64(0) << (64 - bits)), 0
	case bits == 64:
		return n.hi, 0
	case bits < 128:
		return n.hi, n.lo & (^uint64(0) << (128 - bits))
	}
	return n.hi, n.lo
}

// ipv6Compare compares two addresses on their first bits bits.
func ipv6Compare(a, b ipv6Net, bits int) int {
	ah, al := a.masked(bits)
	bh, bl := b.masked(bits)
	switch {
	case ah != bh:
		return ipCmp64(ah, bh)
	case al != bl:
		return ipCmp64(al, bl)
	}
	return 0
}

func ipCmp64(a, b uint64) int {
	if a < b {
		return -1
	}
	return 1
}

// contains reports whether the network holds address ip.
func (n ipv6Net) contains(ip ipv6Net) bool { return ipv6Compare(n, ip, n.bits) == 0 }

// ipMapStrings is MapStrings with a direct loop for plain (not dictionary
// encoded, not constant) string columns, the common shape of an address
// column: one call of f per row without MapStrings' generic row closure.
func ipMapStrings[R any](t vector.Type, v *vector.Vector, n Rows, f func(string) (R, bool)) *vector.Vector {
	if v.Type != vector.String || v.Codes != nil || v.Const {
		return MapStrings(t, v, n, f)
	}
	out := make([]R, n.N)
	strs := v.Strs[:n.N]
	var valid vector.Bitmap
	for i := range n.Live() {
		ok := v.Valid == nil || v.Valid.Get(i)
		if ok {
			out[i], ok = f(strs[i])
		}
		if !ok {
			valid = clearBit(valid, i, n.N)
		}
	}
	return finish(t, out, valid, n, n.N, false)
}

// compareOrMatch turns a row comparison into the result of the
// ipv*_compare functions (the comparison as long) or the ipv*_is_match
// functions (whether it is 0).
func compareOrMatch(match bool, args []*vector.Vector, n Rows, cmp func(i int) (int, bool)) *vector.Vector {
	if match {
		return Each(vector.Bool, args, n, func(i int) (bool, bool) {
			c, ok := cmp(i)
			return c == 0, ok
		})
	}
	return Each(vector.Int, args, n, func(i int) (int64, bool) {
		c, ok := cmp(i)
		return int64(c), ok
	})
}

// parseNets parses a list of range strings (IPv4 or IPv6 by parse); any
// element that is not a string or does not parse makes the row null.
func parseNets[N any](list []any, parse func(string) (N, bool)) ([]N, bool) {
	nets := make([]N, 0, len(list))
	for _, r := range list {
		s, isStr := r.(string)
		if !isStr {
			return nil, false
		}
		net, ok := parse(s)
		if !ok {
			return nil, false
		}
		nets = append(nets, net)
	}
	return nets, true
}
