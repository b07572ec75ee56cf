package difftest

import (
	"fmt"
	"math/rand/v2"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/aplite/aplite/bench/gen"
)

// Col is a column of a stage's schema: its name and APL type (string,
// long, real, bool, datetime, timespan, dynamic).
type Col struct{ Name, Type string }

// Gen generates queries over the schema of the generated datasets from
// a small grammar; the same seed, data and schema give the same queries.
type Gen struct {
	r    *rand.Rand
	d    *Data
	logs []Col
	dims []Col
	n    int // names made so far (x0, a1, ...)
	// star allows `* has ...` leaves: only in a where's own predicate
	// (and/or/not of them), the one place the language takes them.
	star bool
}

// NewGen returns a generator of queries over logs and dims, whose
// schemas (getschema) are given.
func NewGen(seed int64, d *Data, logs, dims []Col) *Gen {
	return &Gen{r: rand.New(rand.NewPCG(uint64(seed), 0x71756572)), d: d, logs: logs, dims: dims}
}

// state is what the generator knows of the rows between two stages.
type state struct {
	cols []Col
	raw  bool // rows are logs' events (or extended/filtered ones)
}

// Query generates one query.
func (g *Gen) Query() Query {
	q := Query{Src: "['logs']"}
	st := state{cols: slices.Clone(g.logs), raw: true}
	if g.r.IntN(12) == 0 {
		q.Stages = append(q.Stages, g.union(&st))
	}
	for range g.r.IntN(4) {
		q.Stages = append(q.Stages, g.stage(&st)...)
	}
	q.Stages = append(q.Stages, g.final(&st)...)
	return q
}

func (g *Gen) name(prefix string) string {
	g.n++
	return fmt.Sprintf("%s%d", prefix, g.n)
}

func (g *Gen) stage(st *state) []Stage {
	switch x := g.r.IntN(20); {
	case x < 7:
		g.star = true
		defer func() { g.star = false }()
		return []Stage{{Text: "where %P", Pred: g.pred(st.cols, 3), Order: 'k'}}
	case x < 11:
		return []Stage{g.extend(st)}
	case x < 12:
		return []Stage{g.project(st)}
	case x < 15 && st.raw && hasCol(st.cols, "server_datacenter"):
		return []Stage{g.join(st)}
	case x < 16 && st.raw && hasCol(st.cols, "server_datacenter"):
		return []Stage{g.lookup(st)}
	case x < 18:
		return []Stage{g.summarize(st)}
	default:
		return g.sorted(st)
	}
}

// final ends a query so that its answer stays small: an aggregation, an
// ordered cut, distinct values, a count, or a narrow projection.
func (g *Gen) final(st *state) []Stage {
	switch g.r.IntN(10) {
	case 0, 1, 2, 3:
		return []Stage{g.summarize(st)}
	case 4, 5:
		return g.sorted(st)
	case 6:
		return []Stage{g.distinct(st)}
	case 7:
		if g.r.IntN(3) == 0 { // any n rows: only their count is certain
			return []Stage{{Text: fmt.Sprintf("take %d | count", pick(g.r, []int{0, 5, 100, 5000})), Order: 'r'}}
		}
		return []Stage{{Text: "count", Order: 'r'}}
	default:
		if !st.raw {
			return nil
		}
		return []Stage{g.project(st)}
	}
}

func hasCol(cols []Col, name string) bool {
	return slices.ContainsFunc(cols, func(c Col) bool { return c.Name == name })
}

var identRE = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]*$`)

// ref is a column reference in APL: the name, or ['name'] when it has
// dots or other characters a bare name cannot.
func ref(name string) string {
	if identRE.MatchString(name) {
		return name
	}
	return "['" + name + "']"
}

// quote is an APL string literal.
func quote(s string) string {
	return `"` + strings.NewReplacer(`\`, `\\`, `"`, `\"`).Replace(s) + `"`
}

// pick returns a random element of xs.
func pick[T any](r *rand.Rand, xs []T) T { return xs[r.IntN(len(xs))] }

// usable are the columns worth generating over (not _sysTime, the same
// for every event).
func usable(cols []Col) []Col {
	var out []Col
	for _, c := range cols {
		if c.Name != "_sysTime" {
			out = append(out, c)
		}
	}
	return out
}

func isNum(t string) bool { return t == "long" || t == "real" }

// lowCard reports whether a column has few distinct values (a good
// group key): fewer than Data kept.
func (g *Gen) lowCard(c Col) bool {
	vs, ok := g.d.Values[c.Name]
	return ok && len(vs) < maxValues || c.Type == "bool"
}

// value is a constant of c's values (or a plausible one), as APL text.
func (g *Gen) value(c Col) string {
	vs := g.d.Values[c.Name]
	if len(vs) == 0 || g.r.IntN(8) == 0 {
		switch c.Type {
		case "string":
			return quote(pick(g.r, []string{"", "GET", "a", "zz", "/api"}))
		case "datetime":
			return g.timeLit()
		case "bool":
			return pick(g.r, []string{"true", "false"})
		}
		return pick(g.r, []string{"0", "1", "200", "404", "12.5", "1000", "-1"})
	}
	v := pick(g.r, vs)
	switch x := v.(type) {
	case string:
		if c.Type == "datetime" {
			return "datetime(" + x + ")"
		}
		if c.Type != "string" && c.Type != "dynamic" {
			return quote(x)
		}
		return quote(x)
	case int64:
		return strconv.FormatInt(x, 10)
	case float64:
		return strconv.FormatFloat(x, 'f', -1, 64)
	case bool:
		return strconv.FormatBool(x)
	}
	return "0"
}

// numValue is a numeric constant for a comparison with c.
func (g *Gen) numValue(c Col) string {
	for range 4 {
		v := g.value(c)
		if _, err := strconv.ParseFloat(v, 64); err == nil {
			return v
		}
	}
	return pick(g.r, []string{"0", "200", "404", "12.5", "1000"})
}

// timeLit is a datetime within the data's day (or just outside it).
func (g *Gen) timeLit() string {
	t := gen.Day0.Add(time.Duration(g.r.IntN(26*60)-60) * time.Minute)
	return "datetime(" + t.Format(time.RFC3339) + ")"
}

func (g *Gen) word() string {
	if len(g.d.Words) == 0 {
		return "error"
	}
	return pick(g.r, g.d.Words)
}

// pred is a predicate over cols, of depth at most depth.
func (g *Gen) pred(cols []Col, depth int) *Expr {
	if depth <= 1 || g.r.IntN(3) == 0 {
		return &Expr{Leaf: g.leaf(cols)}
	}
	switch g.r.IntN(5) {
	case 0, 1:
		return &Expr{Op: "and", Kids: []*Expr{g.pred(cols, depth-1), g.pred(cols, depth-1)}}
	case 2, 3:
		return &Expr{Op: "or", Kids: []*Expr{g.pred(cols, depth-1), g.pred(cols, depth-1)}}
	}
	return &Expr{Op: "not", Kids: []*Expr{g.pred(cols, depth-1)}}
}

var cmpOps = []string{"==", "!=", "<", "<=", ">", ">="}

// leaf is one comparison, membership, text or null test.
func (g *Gen) leaf(cols []Col) string {
	c := pick(g.r, usable(cols))
	n := ref(c.Name)
	switch g.r.IntN(20) {
	case 0, 1:
		return pick(g.r, []string{"isnull(" + n + ")", "isnotnull(" + n + ")"})
	case 2: // every string column: term filters and their pruning
		if !g.star {
			break
		}
		return pick(g.r, []string{"* has ", "* has_cs ", "* contains "}) + quote(g.word())
	}
	switch c.Type {
	case "long", "real":
		switch g.r.IntN(7) {
		case 0:
			a, b := g.numValue(c), g.numValue(c)
			if x, _ := strconv.ParseFloat(a, 64); x > mustFloat(b) {
				a, b = b, a
			}
			return fmt.Sprintf("%s between (%s .. %s)", n, a, b)
		case 1:
			return fmt.Sprintf("%s %s (%s, %s, %s)", n, pick(g.r, []string{"in", "!in"}), g.numValue(c), g.numValue(c), g.numValue(c))
		case 2:
			if o := pick(g.r, usable(cols)); isNum(o.Type) {
				return fmt.Sprintf("%s %s %s", n, pick(g.r, cmpOps), ref(o.Name))
			}
		case 3:
			return fmt.Sprintf("%s * 2 %s %s", n, pick(g.r, cmpOps), g.numValue(c))
		}
		return fmt.Sprintf("%s %s %s", n, pick(g.r, cmpOps), g.numValue(c))
	case "string":
		return g.stringLeaf(c, n)
	case "bool":
		return pick(g.r, []string{n, n + " == true", n + " == false", n + " != true"})
	case "datetime":
		switch g.r.IntN(4) {
		case 0:
			a, b := g.timeLit(), g.timeLit()
			if a > b {
				a, b = b, a
			}
			return fmt.Sprintf("%s between (%s .. %s)", n, a, b)
		case 1:
			return fmt.Sprintf("%s %s ago(%dh)", n, pick(g.r, cmpOps[2:]), 12+g.r.IntN(24))
		}
		return fmt.Sprintf("%s %s %s", n, pick(g.r, cmpOps), g.timeLit())
	case "timespan":
		return fmt.Sprintf("%s %s %dm", n, pick(g.r, cmpOps), g.r.IntN(600))
	}
	// dynamic: a field of several types, or an array
	if len(g.d.Values[c.Name]) == 0 {
		return pick(g.r, []string{"array_length(" + n + ") > 1", "isnotnull(" + n + ")",
			"tostring(" + n + ") contains \"a\"", n + " has " + quote(g.word())})
	}
	switch g.r.IntN(5) {
	case 0:
		return fmt.Sprintf("toint(%s) %s %s", n, pick(g.r, cmpOps), g.numValue(c))
	case 1:
		return fmt.Sprintf("tostring(%s) == %s", n, quote(strings.Trim(g.value(c), `"`)))
	case 2:
		return fmt.Sprintf("%s in (%s, %s)", n, g.value(c), g.value(c))
	}
	return fmt.Sprintf("%s %s %s", n, pick(g.r, cmpOps), g.value(c))
}

func mustFloat(s string) float64 {
	f, _ := strconv.ParseFloat(s, 64)
	return f
}

// stringLeaf tests a string column; free text gets term and substring
// tests with words of the data.
func (g *Gen) stringLeaf(c Col, n string) string {
	v := g.value(c)
	s, _ := strconv.Unquote(v)
	if s == "" {
		s = strings.Trim(v, `"`)
	}
	if c.Name == "message" || g.r.IntN(4) == 0 {
		w := g.word()
		if c.Name != "message" && len(s) > 0 {
			fs := strings.FieldsFunc(s, func(r rune) bool { return r == '/' || r == ' ' || r == '.' || r == '-' })
			if len(fs) > 0 {
				w = pick(g.r, fs)
			}
		}
		switch g.r.IntN(6) {
		case 0:
			return n + " !has " + quote(w)
		case 1:
			return n + " contains " + quote(w[:max(1, len(w)/2)])
		case 2:
			return n + " has_cs " + quote(w)
		case 3:
			return n + " hasprefix " + quote(w[:max(1, len(w)/2)])
		}
		return n + " has " + quote(w)
	}
	switch g.r.IntN(10) {
	case 0:
		return n + " =~ " + quote(strings.ToUpper(s))
	case 1:
		return n + " startswith " + quote(s[:min(len(s), 3)])
	case 2:
		return n + " endswith " + quote(s[max(0, len(s)-3):])
	case 3:
		return fmt.Sprintf("%s %s (%s, %s)", n, pick(g.r, []string{"in", "!in", "in~"}), v, g.value(c))
	case 4:
		return pick(g.r, []string{"isempty(", "isnotempty("}) + n + ")"
	case 5:
		return fmt.Sprintf("strlen(%s) %s %d", n, pick(g.r, cmpOps), g.r.IntN(40))
	case 6:
		return n + " !contains " + quote(s[:min(len(s), 4)])
	}
	return fmt.Sprintf("%s %s %s", n, pick(g.r, cmpOps), v)
}
