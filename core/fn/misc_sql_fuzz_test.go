package fn

import "testing"

// FuzzParseSQL checks that parse_sql never panics and that whatever it
// accepts, format_sql prints as a statement that parses back to the same
// model.
func FuzzParseSQL(f *testing.F) {
	for _, s := range []string{
		"SELECT id, status, uri FROM requests WHERE req_duration_ms > 1000 ORDER BY req_duration_ms DESC",
		"SELECT DISTINCT COUNT(*) AS n, l.uri FROM logs AS l GROUP BY l.uri HAVING COUNT(*) >= 2 LIMIT 10 OFFSET 5;",
		"SELECT * FROM t WHERE name LIKE 'O''Brien%' AND x NOT IN (1, -2.5) AND y IS NOT NULL AND z BETWEEN 1 AND 2",
		`SELECT "geo.city" FROM logs l LEFT JOIN users u ON l.id = u.id`,
		"SELECT a - (b - c), -(-x), NOT NOT a FROM t -- comment",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		m, err := sqlParse(s)
		if err != nil {
			return
		}
		var w sqlFormatter
		w.stmt(m)
		if w.bad {
			t.Fatalf("parse_sql(%q) gave a model format_sql rejects: %v", s, m)
		}
		again, err := sqlParse(w.b.String())
		if err != nil {
			t.Fatalf("format_sql output %q of %q does not parse: %v", w.b.String(), s, err)
		}
		var w2 sqlFormatter
		w2.stmt(again)
		if w2.b.String() != w.b.String() {
			t.Fatalf("not a fixed point: %q -> %q -> %q", s, w.b.String(), w2.b.String())
		}
	})
}

// FuzzIPv4Text checks that the text scanner never panics, only reports
// addresses that parse on their own, and agrees with ipv4Parse on bare
// addresses.
func FuzzIPv4Text(f *testing.F) {
	for _, s := range []string{"05:04:54 127.0.0.1 GET", "1.2.3.4.5", "a10.0.0.1", "999.1.1.1", "10.0.0.1/24", "1.1.1.1."} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		for p := 0; p < len(s); {
			ip, next, ok := ipv4Next(s, p)
			if !ok {
				break
			}
			if next <= p || next > len(s) {
				t.Fatalf("ipv4Next(%q, %d) did not advance: %d", s, p, next)
			}
			if a, ok := ipv4Parse(ipv4Format(ip)); !ok || a.ip != ip {
				t.Fatalf("found %s in %q, which does not round-trip", ipv4Format(ip), s)
			}
			p = next
		}
		if a, ok := ipv4Parse(s); ok && a.bits == 32 {
			if _, _, found := ipv4Next(s, 0); !found && s == ipv4Format(a.ip) {
				t.Fatalf("%q parses as an address but the scanner misses it", s)
			}
		}
	})
}
