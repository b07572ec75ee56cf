package exec

import (
	"fmt"
	"regexp"

	"github.com/aplite/aplite/core/fn"
	"github.com/aplite/aplite/vector"
)

// ParseStage is parse and parse-where: a pattern of string constants,
// `*` wildcards and captures `name[:type]` is turned into one regular
// expression; each capture becomes a column (replacing a column of the
// same name). A row that does not match gets nulls (parse) or is dropped
// (parse-where).
//
// kind=simple and kind=relaxed match the constants literally and the
// whole text (anchored at both ends); captures take as little as they
// can. In simple mode a typed capture must look like its type (a long is
// digits) and a value that does not convert fails the whole row; in
// relaxed mode a typed capture takes the longest prefix that looks like
// its type and skips the rest, and a value that does not convert only
// nulls that column. kind=regex treats the constants
// as regular expressions, is not anchored, and captures are greedy unless
// flags=U; a typed capture must convert.
//
// It runs in the scan workers. Over a dictionary-encoded column the
// parsePattern runs once per distinct value.
type ParseStage struct {
	In, Sch Schema
	Src     *Expr
	Re      *regexp.Regexp
	Caps    []parseCapture
	Where   bool
	Relaxed bool
	Fast    []FastItem // kind=simple scanner, nil when the shape needs the regexp
}

// parseCapture is one capture: its regexp group and output column.
type parseCapture struct {
	Name  string
	Typ   vector.Type
	Group int
	Slot  int
	Conv  *fn.Func // string → typ conversion; nil for strings
}

// ConvName names the registry function converting text to each type.
var ConvName = map[vector.Type]string{
	vector.Int: "tolong", vector.Float: "toreal", vector.Bool: "tobool",
	vector.DateTime: "todatetime", vector.TimeSpan: "totimespan", vector.Dynamic: "todynamic",
}

// Out implements Stage.
func (st *ParseStage) Out() Schema { return st.Sch }

// Apply implements streamStage.
func (st *ParseStage) Apply(x *Ctx, b *Batch) (*Batch, error) {
	v, err := st.Src.Run(x, b)
	if err != nil {
		return nil, err
	}
	caps, matched := st.extract(v, b)
	outs := make([]*vector.Vector, len(caps))
	var failed []bool
	for i, c := range st.Caps {
		outs[i] = caps[i]
		if c.Conv == nil {
			continue
		}
		// Every row, not the live ones: conversionFailures below reads
		// them all.
		if outs[i], err = c.Conv.Eval(x.Fn, []*vector.Vector{caps[i]}, fn.Dense(b.N)); err != nil {
			return nil, fmt.Errorf("parse %s: %w", c.Name, err)
		}
		if !st.Relaxed {
			failed = conversionFailures(caps[i], outs[i], b.N, failed)
		}
	}
	if failed != nil {
		for i := range outs {
			outs[i] = nullRows(outs[i], failed, b.N)
		}
		for i, f := range failed {
			matched[i] = matched[i] && !f
		}
	}
	nb := withColumns(b, make([]*vector.Vector, len(st.Sch)-len(st.In))...)
	for i, c := range st.Caps {
		nb.Cols[c.Slot] = outs[i]
	}
	if st.Where {
		return keepMatched(nb, matched), nil
	}
	return nb, nil
}

// extract runs the pattern over every live row and returns one string
// column per capture (null where the row does not match) and the rows
// that matched.
func (st *ParseStage) extract(v *vector.Vector, b *Batch) ([]*vector.Vector, []bool) {
	return textColumns(v, b, len(st.Caps), st.Match)
}

// Match runs the pattern over s: the capture texts, and whether it
// matched. A group that took no part in the match is null.
func (st *ParseStage) Match(s string) ([]string, bool) {
	if st.Fast != nil {
		out := make([]string, len(st.Caps))
		if ok, definite := FastMatch(st.Fast, s, out); definite {
			return out, ok
		}
	}
	m := st.Re.FindStringSubmatchIndex(s)
	if m == nil {
		return nil, false
	}
	out := make([]string, len(st.Caps))
	for i, c := range st.Caps {
		lo, hi := m[2*c.Group], m[2*c.Group+1]
		if lo < 0 {
			out[i] = nullText
			continue
		}
		out[i] = s[lo:hi]
	}
	return out, true
}

// conversionFailures marks the rows where a captured text did not
// convert to its type.
func conversionFailures(text, conv *vector.Vector, n int, failed []bool) []bool {
	for r := 0; r < n; r++ {
		if !text.IsNull(r) && conv.IsNull(r) {
			if failed == nil {
				failed = make([]bool, n)
			}
			failed[r] = true
		}
	}
	return failed
}

// nullRows returns v with the failed rows set to null.
func nullRows(v *vector.Vector, failed []bool, n int) *vector.Vector {
	v = v.Materialize()
	cp := *v
	cp.Mixed = nil // its bits would still call the nulled rows numbers
	if cp.Valid == nil {
		cp.Valid = vector.NewBitmapSet(n)
	} else {
		cp.Valid = append(vector.Bitmap(nil), cp.Valid...)
	}
	for r, f := range failed {
		if f {
			cp.Valid.Clear(r)
		}
	}
	return &cp
}

// keepMatched narrows b's selection to the live rows that matched; nil
// when none did.
func keepMatched(b *Batch, matched []bool) *Batch {
	var sel []int32
	for _, r := range b.LiveRows() {
		if matched[r] {
			sel = append(sel, r)
		}
	}
	if len(sel) == 0 {
		return nil
	}
	b.Sel = sel
	return b
}
