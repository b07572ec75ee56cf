package exec

import "github.com/aplite/aplite/vector"

// joinKind is a normalized join flavour.
type joinKind int

// The join kinds; joinInnerUnique is KQL's default innerunique.
const (
	joinInner joinKind = iota
	joinInnerUnique
	joinLeftOuter
	joinRightOuter
	joinFullOuter
	joinLeftSemi
	joinLeftAnti
	joinRightSemi
	joinRightAnti
)

// joinKinds maps APL kind names (and KQL's aliases) to kinds. The empty
// kind is inner: APL's default, unlike KQL's innerunique.
var joinKindNames = map[string]joinKind{
	"": joinInner, "inner": joinInner, "innerunique": joinInnerUnique,
	"leftouter": joinLeftOuter, "rightouter": joinRightOuter, "fullouter": joinFullOuter,
	"leftsemi": joinLeftSemi, "rightsemi": joinRightSemi,
	"leftanti": joinLeftAnti, "leftantisemi": joinLeftAnti, "anti": joinLeftAnti,
	"rightanti": joinRightAnti, "rightantisemi": joinRightAnti,
}

// pairBudgetStep is how many output pairs are produced between two
// memory budget charges, so a runaway many-to-many join fails early.
const pairBudgetStep = 1 << 16

// joinPairs is the row plan of a join's output: row k takes left row
// l[k] and right row r[k]; -1 pads with nulls. Semi and anti joins use
// only one side.
type joinPairs struct {
	l, r []int32
}

// matcher finds the matching rows of two key sets. It hashes the smaller
// side (the build side) and streams the other one through the table.
type matcher struct {
	x        *Ctx
	rowBytes int64 // budget charged per output row
	nl, nr   int
	lid, rid []int32 // key id per row, -1 when unmatched or null
	buildL   bool    // the left side was hashed
	groups   int32
	charged  int
}

// newMatcher hashes one side's keys (the left one when buildL; callers
// pass the smaller side) and looks the other side up.
func newMatcher(x *Ctx, types []vector.Type, lk, rk []*vector.Vector, nl, nr int, buildL bool, rowBytes int64) (*matcher, error) {
	m := &matcher{x: x, nl: nl, nr: nr, rowBytes: rowBytes, lid: make([]int32, nl), rid: make([]int32, nr), buildL: buildL}
	t := newKeyTable(types)
	if m.buildL {
		t.ids(lk, nl, true, m.lid)
		t.ids(rk, nr, false, m.rid)
	} else {
		t.ids(rk, nr, true, m.rid)
		t.ids(lk, nl, false, m.lid)
	}
	m.groups = t.n
	build := nr
	if m.buildL {
		build = nl
	}
	if err := x.Budget.Charge(int64(build)*24 + int64(nl+nr)*4); err != nil {
		return nil, err
	}
	return m, nil
}

// csr lists the rows of one side per key id: rows[off[g]:off[g+1]] in
// ascending order.
func csr(ids []int32, groups int32) (off []int32, rows []int32) {
	off = make([]int32, groups+1)
	for _, g := range ids {
		if g >= 0 {
			off[g+1]++
		}
	}
	for g := int32(1); g <= groups; g++ {
		off[g] += off[g-1]
	}
	rows = make([]int32, off[groups])
	next := append([]int32(nil), off[:groups]...)
	for i, g := range ids {
		if g >= 0 {
			rows[next[g]] = int32(i)
			next[g]++
		}
	}
	return off, rows
}

// hits reports, for each key id, whether some row of ids has it.
func hits(ids []int32, groups int32) []bool {
	h := make([]bool, groups)
	for _, g := range ids {
		if g >= 0 {
			h[g] = true
		}
	}
	return h
}

// matchedRows returns the rows of one side (ids) that have (want=true) or
// lack (want=false) a match on the other side (other).
func matchedRows(ids, other []int32, groups int32, want bool) []int32 {
	h := hits(other, groups)
	var out []int32
	for i, g := range ids {
		if (g >= 0 && h[g]) == want {
			out = append(out, int32(i))
		}
	}
	return out
}

// Charge bills the budget for the output rows produced since last time,
// every pairBudgetStep rows or when forced.
func (m *matcher) Charge(rows int, force bool) error {
	if rows-m.charged < pairBudgetStep && !force {
		return nil
	}
	if err := m.x.Ctx.Err(); err != nil { // a join can run long: honour the deadline
		return err
	}
	err := m.x.Budget.Charge(int64(rows-m.charged) * m.rowBytes)
	m.charged = rows
	return err
}

// pairs returns every matching (left, right) pair ordered by left row,
// then right row; with unique, only the first right row of each left row.
func (m *matcher) pairs(unique bool) (joinPairs, error) {
	var p joinPairs
	if !m.buildL {
		off, rows := csr(m.rid, m.groups)
		for li, g := range m.lid {
			if g < 0 {
				continue
			}
			rs := rows[off[g]:off[g+1]]
			if unique && len(rs) > 1 {
				rs = rs[:1]
			}
			for _, ri := range rs {
				p.l = append(p.l, int32(li))
				p.r = append(p.r, ri)
			}
			if err := m.Charge(len(p.l), false); err != nil {
				return p, err
			}
		}
		return p, nil
	}
	// The left side was hashed: count each left row's matches, then place
	// every right row after the matches of its left rows, so the output
	// keeps the left order without a sort.
	off, rows := csr(m.lid, m.groups)
	cnt := make([]int32, m.nl+1)
	seen := 0
	for _, g := range m.rid {
		if g < 0 {
			continue
		}
		for _, li := range rows[off[g]:off[g+1]] {
			cnt[li+1]++
		}
		if seen += int(off[g+1] - off[g]); seen >= pairBudgetStep {
			seen = 0
			if err := m.x.Ctx.Err(); err != nil {
				return p, err
			}
		}
	}
	if unique {
		for i := range cnt {
			cnt[i] = min(cnt[i], 1)
		}
	}
	for i := 1; i <= m.nl; i++ {
		cnt[i] += cnt[i-1]
	}
	total := int(cnt[m.nl])
	if err := m.Charge(total, true); err != nil {
		return p, err
	}
	p.l, p.r = make([]int32, total), make([]int32, total)
	next := append([]int32(nil), cnt[:m.nl]...)
	for ri, g := range m.rid {
		if g < 0 {
			continue
		}
		for _, li := range rows[off[g]:off[g+1]] {
			if k := next[li]; k < cnt[li+1] {
				p.l[k], p.r[k] = li, int32(ri)
				next[li]++
			}
		}
	}
	return p, nil
}

// Plan returns the output rows of a join of kind k.
func (m *matcher) Plan(k joinKind) (joinPairs, error) {
	switch k {
	case joinLeftSemi:
		return joinPairs{l: matchedRows(m.lid, m.rid, m.groups, true)}, nil
	case joinLeftAnti:
		return joinPairs{l: matchedRows(m.lid, m.rid, m.groups, false)}, nil
	case joinRightSemi:
		return joinPairs{r: matchedRows(m.rid, m.lid, m.groups, true)}, nil
	case joinRightAnti:
		return joinPairs{r: matchedRows(m.rid, m.lid, m.groups, false)}, nil
	}
	p, err := m.pairs(k == joinInnerUnique)
	if err != nil {
		return p, err
	}
	if k == joinInner || k == joinInnerUnique {
		return p, m.Charge(len(p.l), true)
	}
	if k == joinLeftOuter || k == joinFullOuter {
		p = padLeft(p, m.nl)
	}
	if k == joinRightOuter || k == joinFullOuter {
		for _, ri := range matchedRows(m.rid, m.lid, m.groups, false) {
			p.l = append(p.l, -1)
			p.r = append(p.r, ri)
		}
	}
	return p, m.Charge(len(p.l), true)
}

// padLeft inserts every left row without a pair, in left order, with a
// null right side.
func padLeft(p joinPairs, nl int) joinPairs {
	out := joinPairs{l: make([]int32, 0, len(p.l)+nl), r: make([]int32, 0, len(p.l)+nl)}
	k := 0
	for li := int32(0); li < int32(nl); li++ {
		if k < len(p.l) && p.l[k] == li {
			for k < len(p.l) && p.l[k] == li {
				out.l = append(out.l, li)
				out.r = append(out.r, p.r[k])
				k++
			}
			continue
		}
		out.l = append(out.l, li)
		out.r = append(out.r, -1)
	}
	return out
}

// gatherPad returns the rows idx of v in order; -1 gives a null.
func gatherPad(v *vector.Vector, idx []int32) *vector.Vector {
	pad := false
	for _, i := range idx {
		if i < 0 {
			pad = true
			break
		}
	}
	if !pad {
		return v.Gather(idx)
	}
	out := vector.New(v.Type, len(idx))
	for _, i := range idx {
		if i < 0 {
			out.AppendNull()
		} else {
			out.AppendFrom(v, int(i))
		}
	}
	return out
}
