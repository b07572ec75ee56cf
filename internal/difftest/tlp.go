package difftest

import (
	"context"
	"encoding/json"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
	"time"
)

// TLP is one ternary logic partitioning check (SQLancer): the rows of
// Base split by Pred into where p, where not(p) and where isnull(p) must
// add up to Base's rows, because every predicate is true, false or null.
type TLP struct {
	Kind string // "where", "summarize", "join-left", "join-right"
	Base Query  // logs, with some where/extend stages
	Pred *Expr
	// Agg is the summarize checked per group (Kind summarize): its
	// columns are the keys, then count, then sum, then max.
	Agg string
}

// TLP generates a partition check; kinds take turns by i.
func (g *Gen) TLP(i int) TLP {
	t := TLP{Kind: []string{"where", "summarize", "join-left", "join-right"}[i%4], Base: Query{Src: "['logs']"}}
	st := state{cols: slices.Clone(g.logs), raw: true}
	for range g.r.IntN(3) {
		if g.r.IntN(2) == 0 {
			t.Base.Stages = append(t.Base.Stages, Stage{Text: "where %P", Pred: g.pred(st.cols, 2), Order: 'k'})
		} else {
			t.Base.Stages = append(t.Base.Stages, g.extend(&st))
		}
	}
	switch t.Kind {
	case "join-right":
		t.Pred = g.pred(g.dims, 3)
	case "summarize":
		t.Pred = g.pred(st.cols, 3)
		t.Agg = g.tlpAgg(st.cols)
	default:
		t.Pred = g.pred(st.cols, 3)
	}
	return t
}

// tlpAgg is a summarize whose groups can be merged across partitions:
// count() and sum() add up, max() of the maxima is the maximum (over a
// column of one type: a dynamic max orders strings apart from numbers).
func (g *Gen) tlpAgg(cols []Col) string {
	var nums, keys []string
	for _, c := range usable(cols) {
		if isNum(c.Type) {
			nums = append(nums, ref(c.Name))
		}
		if g.lowCard(c) || c.Type == "datetime" {
			keys = append(keys, ref(c.Name))
		}
	}
	sum, mx := "0", "_time"
	if len(nums) > 0 {
		sum, mx = pick(g.r, nums), pick(g.r, nums)
	}
	var by []string
	for range 1 + g.r.IntN(2) {
		k := pick(g.r, keys)
		if k == "_time" {
			k = "bin(_time, 1h)"
		}
		if !slices.Contains(by, k) {
			by = append(by, k)
		}
	}
	return fmt.Sprintf("summarize tlp_c = count(), tlp_s = sum(%s), tlp_m = max(%s) by %s", sum, mx, strings.Join(by, ", "))
}

// parts are the queries of a check: the whole, then p, not(p), isnull(p).
func (t TLP) parts() [4]string {
	base := t.Base.String()
	preds := [4]string{"", t.Pred.String(), "not(" + t.Pred.String() + ")", "isnull(" + t.Pred.String() + ")"}
	var out [4]string
	for i, p := range preds {
		switch t.Kind {
		case "where":
			out[i] = base + filter(p) + " | count"
		case "summarize":
			out[i] = base + filter(p) + " | " + t.Agg
		case "join-left":
			out[i] = base + filter(p) + " | join kind=inner (['dims']) on $left.server_datacenter == $right.dc | count"
		case "join-right":
			out[i] = base + " | join kind=inner (['dims']" + filter(p) + ") on $left.server_datacenter == $right.dc | count"
		}
	}
	return out
}

func filter(p string) string {
	if p == "" {
		return ""
	}
	return " | where " + p
}

// String describes the check by its predicate and whole query.
func (t TLP) String() string {
	return fmt.Sprintf("%s partition by p = %s of: %s", t.Kind, t.Pred, t.parts()[0])
}

// Check runs the four queries (N workers) and describes how the parts
// fail to add up; "" when they do, or when the whole is an error the
// parts share (a query the engine refuses is not a partition).
func (r *Rig) Check(ctx context.Context, t TLP) (string, bool) {
	qs := t.parts()
	var as [4]*Answer
	failed := 0
	for i, q := range qs {
		as[i] = r.Answer(ctx, q, ModeN)
		if i > 0 && as[i].Err != "" {
			failed++
		}
	}
	if as[0].Err != "" || failed == 3 { // the engine refuses the base or p itself
		return "", false
	}
	for i := 1; i < 4; i++ {
		if as[i].Err != "" {
			return fmt.Sprintf("part %d failed: %s", i, as[i].Err), true
		}
	}
	if t.Kind == "summarize" {
		return mergeGroups(as), true
	}
	var n [4]int64
	for i, a := range as {
		if a.Rows() != 1 {
			return fmt.Sprintf("part %d: %d rows, want 1", i, a.Rows()), true
		}
		n[i], _ = strconv.ParseInt(string(a.Tables[0].Rows[0][0].(json.Number)), 10, 64)
	}
	if n[1]+n[2]+n[3] != n[0] {
		return fmt.Sprintf("count %d (p) + %d (not p) + %d (isnull p) = %d, want %d", n[1], n[2], n[3], n[1]+n[2]+n[3], n[0]), true
	}
	return "", true
}

// mergeGroups adds the partitions' groups up and compares them with the
// whole's: counts and sums add (sums within tolerance), the maximum is
// the largest of the parts'.
func mergeGroups(as [4]*Answer) string {
	whole := as[0].Tables[0]
	k := len(whole.Fields) - 3
	type agg struct {
		c    int64
		s    float64
		m    any
		mSet bool
	}
	key := func(r []any) string { return groupKey(r[:k]) }
	merged := map[string]*agg{}
	for _, a := range as[1:] {
		for _, r := range a.Tables[0].Rows {
			g := merged[key(r)]
			if g == nil {
				g = &agg{}
				merged[key(r)] = g
			}
			c, _ := strconv.ParseInt(string(r[k].(json.Number)), 10, 64)
			g.c += c
			g.s += num(r[k+1])
			if r[k+2] != nil && (!g.mSet || less(g.m, r[k+2])) {
				g.m, g.mSet = r[k+2], true
			}
		}
	}
	if len(merged) != len(whole.Rows) {
		return fmt.Sprintf("the parts have %d groups, the whole %d", len(merged), len(whole.Rows))
	}
	for _, r := range whole.Rows {
		g := merged[key(r)]
		if g == nil {
			return fmt.Sprintf("group %s is in no part", key(r))
		}
		c, _ := strconv.ParseInt(string(r[k].(json.Number)), 10, 64)
		s := num(r[k+1])
		switch {
		case c != g.c:
			return fmt.Sprintf("group %s: count %d in the parts, %d in the whole", key(r), g.c, c)
		case math.Abs(s-g.s) > 1e-9*math.Max(math.Abs(s), math.Abs(g.s)):
			return fmt.Sprintf("group %s: sum %v in the parts, %v in the whole", key(r), g.s, s)
		case !sameValue(r[k+2], g.m, whole.Fields[k+2].Type):
			return fmt.Sprintf("group %s: max %v in the parts, %v in the whole", key(r), g.m, r[k+2])
		}
	}
	return ""
}

func num(v any) float64 {
	if n, ok := v.(json.Number); ok {
		f, _ := n.Float64()
		return f
	}
	return 0
}

// less orders two maxima of one column: numbers by value, datetimes
// (RFC 3339 text, with as many fraction digits as they need) by time.
func less(a, b any) bool {
	x, ok1 := a.(json.Number)
	y, ok2 := b.(json.Number)
	if ok1 && ok2 {
		return num(x) < num(y)
	}
	s, _ := a.(string)
	t, _ := b.(string)
	ts, err1 := time.Parse(time.RFC3339Nano, s)
	tt, err2 := time.Parse(time.RFC3339Nano, t)
	if err1 == nil && err2 == nil {
		return ts.Before(tt)
	}
	return s < t
}

// groupKey is a group's identity across the parts: a dynamic key groups
// 200 and "200" together (and shows whichever it met first), so numbers
// and numeric strings are written alike.
func groupKey(keys []any) string {
	var b strings.Builder
	for _, v := range keys {
		var s string
		switch x := v.(type) {
		case json.Number:
			s = string(x)
		case string:
			s = x
		default:
			js, _ := json.Marshal(v)
			s = string(js)
		}
		if f, err := strconv.ParseFloat(s, 64); err == nil {
			s = strconv.FormatFloat(f, 'g', -1, 64)
		}
		b.WriteString(s)
		b.WriteByte('|')
	}
	return b.String()
}
