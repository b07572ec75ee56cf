package difftest

import (
	"fmt"
	"slices"
	"strings"
)

// union adds dims' rows to logs': their columns are disjoint but for
// _time and _sysTime, so every other column is null in the other's rows.
func (g *Gen) union(st *state) Stage {
	for _, c := range g.dims {
		if !hasCol(st.cols, c.Name) {
			st.cols = append(st.cols, c)
		}
	}
	st.raw = false
	return Stage{Text: "union ['dims']", Order: 'r'}
}

// expr is a value expression over cols and its type.
func (g *Gen) expr(cols []Col) (string, string) {
	c := pick(g.r, usable(cols))
	n := ref(c.Name)
	switch c.Type {
	case "long":
		return pick(g.r, []string{n + " * 2", n + " + 1", n + " % 7", "bin(" + n + ", 100)", "abs(" + n + " - 300)"}), "long"
	case "real":
		if g.r.IntN(2) == 0 {
			return pick(g.r, []string{n + " * 2", n + " + 0.5", "bin(" + n + ", 10)"}), "real"
		}
		return pick(g.r, []string{"round(" + n + ", 1)", n + " / 3", "toreal(" + n + ") * 1.5"}), "real"
	case "string":
		switch g.r.IntN(9) {
		case 5:
			return "coalesce(" + n + ", \"none\")", "string"
		case 6:
			return "indexof(" + n + ", " + quote(g.word()[:1]) + ")", "long"
		case 7:
			return "replace_string(" + n + ", \"a\", \"A\")", "string"
		case 8:
			return "countof(" + n + ", \"e\")", "long"
		case 0:
			return "strlen(" + n + ")", "long"
		case 1:
			return "tolower(" + n + ")", "string"
		case 2:
			return "substring(" + n + ", 0, 3)", "string"
		case 3:
			return "strcat(" + n + ", \"-\", " + quote(g.word()) + ")", "string"
		}
		return "iff(" + g.pred(cols, 2).String() + ", " + n + ", \"other\")", "string"
	case "bool":
		return "iff(" + n + ", 1, 0)", "long"
	case "datetime":
		switch g.r.IntN(5) {
		case 3:
			return "datetime_diff('minute', " + n + ", " + g.timeLit() + ")", "long"
		case 4:
			return "format_datetime(" + n + ", 'yyyy-MM-dd HH')", "string"
		case 0:
			return "bin(" + n + ", 1h)", "datetime"
		case 1:
			return "hourofday(" + n + ")", "long"
		}
		return "startofday(" + n + ")", "datetime"
	case "dynamic":
		if len(g.d.Values[c.Name]) == 0 {
			return "array_length(" + n + ")", "long"
		}
		e := pick(g.r, []string{"toint(" + n + ")", "toreal(" + n + ")", "tostring(" + n + ")", "gettype(" + n + ")"})
		return e, typeOfConv(e)
	}
	return "case(" + g.pred(cols, 1).String() + ", \"a\", " + g.pred(cols, 1).String() + ", \"b\", \"c\")", "string"
}

func (g *Gen) extend(st *state) Stage {
	var parts []string
	for range 1 + g.r.IntN(2) {
		e, t := g.expr(st.cols)
		x := g.name("x")
		parts = append(parts, x+" = "+e)
		st.cols = append(st.cols, Col{x, t})
	}
	return Stage{Text: "extend " + strings.Join(parts, ", "), Order: 'k'}
}

// typeOfConv is the type a conversion function returns.
func typeOfConv(e string) string {
	switch {
	case strings.HasPrefix(e, "toint("):
		return "long"
	case strings.HasPrefix(e, "toreal("):
		return "real"
	}
	return "string"
}

// project keeps a few columns, sometimes under a new name, or leaves a
// few out.
func (g *Gen) project(st *state) Stage {
	if g.r.IntN(4) == 0 && len(st.cols) > 3 {
		return g.projectAway(st)
	}
	cols := usable(st.cols)
	g.r.Shuffle(len(cols), func(i, j int) { cols[i], cols[j] = cols[j], cols[i] })
	cols = cols[:min(len(cols), 1+g.r.IntN(4))]
	var parts []string
	var out []Col
	keep := map[string]string{}
	for _, c := range cols {
		in := c.Name
		if g.r.IntN(5) == 0 {
			p := g.name("p")
			parts = append(parts, p+" = "+ref(c.Name))
			c.Name = p
		} else {
			parts = append(parts, ref(c.Name))
		}
		keep[in] = c.Name
		out = append(out, c)
	}
	st.cols = out
	st.raw = st.raw && hasCol(out, "server_datacenter")
	return Stage{Text: "project " + strings.Join(parts, ", "), Order: 'k', Keep: keep}
}

// dimsCols are dims' columns that a join adds (those whose names logs
// does not have too).
func (g *Gen) dimsCols(st *state) []Col {
	var out []Col
	for _, c := range g.dims {
		if !hasCol(st.cols, c.Name) && !strings.HasPrefix(c.Name, "_") {
			out = append(out, c)
		}
	}
	return out
}

func (g *Gen) join(st *state) Stage {
	kind := pick(g.r, []string{"inner", "innerunique", "leftouter", "leftsemi", "leftanti", "rightouter", "fullouter", "rightsemi", "rightanti"})
	right := "['dims']"
	if g.r.IntN(2) == 0 {
		right = "(['dims'] | where " + g.pred(g.dims, 2).String() + ")"
	}
	on := "$left.server_datacenter == $right.dc"
	if g.r.IntN(3) == 0 && hasCol(st.cols, "status") { // dynamic keys: each side's type meets the other's
		on = "$left.status == $right.code"
	}
	switch kind {
	case "leftsemi", "leftanti":
	case "rightsemi", "rightanti":
		st.cols = slices.Clone(g.dims)
		st.raw = false
	default:
		st.cols = append(st.cols, g.dimsCols(st)...)
		st.raw = kind != "rightouter" && kind != "fullouter"
	}
	return Stage{Text: fmt.Sprintf("join kind=%s %s on %s", kind, right, on), Order: 'r'}
}

func (g *Gen) lookup(st *state) Stage {
	kind := pick(g.r, []string{"leftouter", "inner"})
	st.cols = append(st.cols, Col{"region", "string"}, Col{"capacity", "long"})
	return Stage{Text: fmt.Sprintf("lookup kind=%s (['dims'] | summarize region = min(region), capacity = max(capacity) by dc) on $left.server_datacenter == $right.dc", kind), Order: 'r'}
}

// summarize aggregates by zero to two keys, one of them maybe a time bin.
func (g *Gen) summarize(st *state) Stage {
	cols := usable(st.cols)
	var aggs []string
	var out []Col
	for range 1 + g.r.IntN(3) {
		a := g.name("a")
		c := pick(g.r, cols)
		n := ref(c.Name)
		num := isNum(c.Type) || c.Type == "dynamic" && len(g.d.Values[c.Name]) > 0
		switch x := g.r.IntN(11); {
		case x == 0:
			aggs, out = append(aggs, a+" = count()"), append(out, Col{a, "long"})
		case x == 1:
			aggs, out = append(aggs, a+" = countif("+g.pred(st.cols, 2).String()+")"), append(out, Col{a, "long"})
		case x == 2 && num:
			t := c.Type
			if t == "dynamic" {
				t = "real"
			}
			aggs, out = append(aggs, a+" = sum("+n+")"), append(out, Col{a, t})
		case x == 3 && num:
			aggs, out = append(aggs, a+" = avg("+n+")"), append(out, Col{a, "real"})
		case x == 4 && (num || c.Type == "datetime"):
			p := pick(g.r, []string{"0", "5", "50", "90", "99", "100"})
			aggs, out = append(aggs, a+" = percentile("+n+", "+p+")"), append(out, Col{a, c.Type})
		case (x == 5 || x == 6) && c.Type != "bool":
			f := pick(g.r, []string{"min", "max"})
			aggs, out = append(aggs, a+" = "+f+"("+n+")"), append(out, Col{a, c.Type})
		case x == 7:
			aggs, out = append(aggs, a+" = dcount("+n+")"), append(out, Col{a, "long"})
		case x == 8 && num:
			f := pick(g.r, []string{"sumif", "avgif", "minif", "maxif"})
			t := map[string]string{"sumif": c.Type, "avgif": "real", "minif": c.Type, "maxif": c.Type}[f]
			if t == "dynamic" && (f == "sumif") {
				t = "real"
			}
			aggs, out = append(aggs, a+" = "+f+"("+n+", "+g.pred(st.cols, 2).String()+")"), append(out, Col{a, t})
		case x == 9:
			aggs, out = append(aggs, a+" = dcountif("+n+", "+g.pred(st.cols, 2).String()+")"), append(out, Col{a, "long"})
		default:
			aggs, out = append(aggs, a+" = count()"), append(out, Col{a, "long"})
		}
	}
	var keys []string
	var keyCols []Col
	for range g.r.IntN(3) {
		c := pick(g.r, cols)
		switch {
		case c.Type == "datetime":
			if !hasCol(keyCols, c.Name) {
				keys = append(keys, "bin("+ref(c.Name)+", "+pick(g.r, []string{"15m", "1h", "6h", "1d"})+")")
				keyCols = append(keyCols, c)
			}
		case isNum(c.Type) && g.r.IntN(2) == 0:
			k := g.name("k")
			keys = append(keys, k+" = bin("+ref(c.Name)+", "+pick(g.r, []string{"10", "100", "1000"})+")")
			keyCols = append(keyCols, Col{k, c.Type})
		case g.lowCard(c) && !hasCol(keyCols, c.Name):
			keys = append(keys, ref(c.Name))
			keyCols = append(keyCols, c)
		}
	}
	st.cols = append(keyCols, out...)
	st.raw = false
	text := "summarize " + strings.Join(aggs, ", ")
	if len(keys) > 0 {
		text += " by " + strings.Join(keys, ", ")
	}
	return Stage{Text: text, Order: 'r'}
}

// sorted is a top, or a sort and a take.
func (g *Gen) sorted(st *state) []Stage {
	cols := usable(st.cols)
	var sortable []Col
	for _, c := range cols {
		if c.Type != "dynamic" || len(g.d.Values[c.Name]) > 0 {
			sortable = append(sortable, c)
		}
	}
	if len(sortable) == 0 {
		return nil
	}
	n := []int{1, 3, 10, 50}[g.r.IntN(4)]
	dir := func() string { return pick(g.r, []string{"asc", "desc", "desc", "asc nulls last", "desc nulls first"}) }
	if g.r.IntN(2) == 0 {
		c := pick(g.r, sortable)
		return []Stage{{Text: fmt.Sprintf("top %d by %s %s", n, ref(c.Name), dir()), Order: 's', Keys: []string{c.Name}, Limit: true}}
	}
	var by []string
	var keys []string
	for range 1 + g.r.IntN(2) {
		c := pick(g.r, sortable)
		if !slices.Contains(keys, c.Name) {
			by = append(by, ref(c.Name)+" "+dir())
			keys = append(keys, c.Name)
		}
	}
	// Events have a unique id: ending the keys with it mostly makes the
	// order total, so what comes after the cut is comparable.
	if hasCol(cols, "id") && !slices.Contains(keys, "id") && g.r.IntN(4) != 0 {
		by = append(by, "id asc")
		keys = append(keys, "id")
	}
	return []Stage{
		{Text: "sort by " + strings.Join(by, ", "), Order: 's', Keys: keys},
		{Text: fmt.Sprintf("take %d", n), Order: 'k', Limit: true},
	}
}

// distinct lists the distinct values of one or two columns.
func (g *Gen) distinct(st *state) Stage {
	cols := usable(st.cols)
	c := pick(g.r, cols)
	names := []string{ref(c.Name)}
	out := []Col{c}
	if d := pick(g.r, cols); d.Name != c.Name && g.r.IntN(2) == 0 {
		names = append(names, ref(d.Name))
		out = append(out, d)
	}
	st.cols, st.raw = out, false
	return Stage{Text: "distinct " + strings.Join(names, ", "), Order: 'r'}
}

func (g *Gen) projectAway(st *state) Stage {
	cols := usable(st.cols)
	away := map[string]bool{}
	var names []string
	for range 1 + g.r.IntN(3) {
		c := pick(g.r, cols)
		if !away[c.Name] {
			away[c.Name] = true
			names = append(names, ref(c.Name))
		}
	}
	keep := map[string]string{}
	var out []Col
	for _, c := range st.cols {
		if !away[c.Name] {
			keep[c.Name] = c.Name
			out = append(out, c)
		}
	}
	st.cols = out
	st.raw = st.raw && hasCol(out, "server_datacenter")
	return Stage{Text: "project-away " + strings.Join(names, ", "), Order: 'k', Keep: keep}
}
