package exec

import (
	"github.com/aplite/aplite/core/store"
	"github.com/aplite/aplite/vector"
)

// Paged columns (store FORMAT.md, block version 4): a block's large
// free-text columns are stored in pages of a granule. When the term
// filters or a time window leave only some granules of a part, the scan
// decodes the pages under them instead of the whole column, and the
// column cache keeps those pages, so a rare-word search over ten million
// messages decodes and holds a few granules, not every message. The
// winners of a top read their cells the same way (cellAt).

// pagedKey is the one stored column that schema column c reads from a
// paged part, with its page rows; ok is false when c is read whole: not
// paged, absent, or converted or merged from other types.
func (pl *partLoader) pagedKey(c ColDef) (pp store.PagedPart, k store.ColKey, pr int, ok bool) {
	if pl.src.WithSource != "" && c.Name == pl.src.WithSource {
		return nil, k, 0, false
	}
	pp, isPaged := pl.sp.Part.(store.PagedPart)
	if !isPaged || !pl.sp.Part.Immutable() {
		return nil, k, 0, false
	}
	found := 0
	for _, m := range pl.metas {
		if m.Key.Name == c.Name {
			k = m.Key
			found++
		}
	}
	if found != 1 || k.Type != c.Type {
		return nil, k, 0, false
	}
	pr = pp.PageRows(k)
	return pp, k, pr, pr > 0
}

// pagedCol returns schema column i over rows [lo, hi) of the part from
// the pages under them; ok is false when the column is read whole. A
// column already cached whole is sliced from the cache instead.
func (pl *partLoader) pagedCol(i, lo, hi int) (v *vector.Vector, ok bool, err error) {
	pp, k, pr, ok := pl.pagedKey(pl.src.Sch[i])
	if !ok {
		return nil, false, nil
	}
	if whole := pl.x.Cache.peek(colCacheKey{part: pp.ID(), Col: k}); whole != nil {
		return unpackRows(whole, lo, hi), true, nil
	}
	first, last := lo/pr, (hi-1)/pr
	pieces, err := pl.x.readPages(pp, k, first, last)
	if err != nil {
		return nil, true, err
	}
	if len(pieces) == 1 {
		return pieces[0].Slice(lo-first*pr, hi-first*pr), true, nil
	}
	pieces[0] = pieces[0].Slice(lo-first*pr, pieces[0].Len)
	pieces[len(pieces)-1] = pieces[len(pieces)-1].Slice(0, hi-last*pr)
	return store.JoinPages(k.Type, pieces), true, nil
}

// readPages returns pages [first, last] of stored column k, from the
// column cache where it holds them; the runs of missing pages are read
// with one call each (one ranged read on object storage).
func (x *Ctx) readPages(pp store.PagedPart, k store.ColKey, first, last int) ([]*vector.Vector, error) {
	out := make([]*vector.Vector, 0, last-first+1)
	key := func(j int) colCacheKey { return colCacheKey{part: pp.ID(), Col: k, page: j + 1} }
	for j := first; j <= last; {
		if v := x.Cache.Get(key(j)); v != nil {
			x.Stats.BlocksCached.Add(1)
			out = append(out, v)
			j++
			continue
		}
		e := j
		for e < last && x.Cache.peek(key(e+1)) == nil {
			e++
		}
		vs, err := pp.ReadPages(k, j, e)
		if err != nil {
			return nil, err
		}
		x.Stats.PagesDecoded.Add(int64(len(vs)))
		for m, v := range vs {
			v = dictEncode(v)
			x.Cache.Put(key(j+m), v)
			out = append(out, v)
		}
		j = e + 1
	}
	return out, nil
}

// cellAt returns a vector holding row row of schema column i and the
// row's index in it, decoding only the page under the row when the
// column is paged and not loaded whole yet: a top's winners are a few
// rows of a few parts, and their wide text columns need not be decoded
// whole for them.
//
// Several winners often share a page, so the pages read here are kept
// for the rest of the query (cells): without the column cache each
// winner would decode its page again.
func (pl *partLoader) cellAt(i, row int) (*vector.Vector, int, error) {
	if !pl.cols[i].loaded.Load() {
		if _, _, pr, ok := pl.pagedKey(pl.src.Sch[i]); ok {
			lo := row / pr * pr
			key := [2]int{i, lo}
			if v, ok := pl.cells.Load(key); ok {
				return v.(*vector.Vector), row - lo, nil
			}
			v, _, err := pl.pagedCol(i, lo, min(lo+pr, pl.n))
			if err != nil {
				return nil, 0, err
			}
			pl.cells.Store(key, v)
			return v, row - lo, nil
		}
	}
	v, err := pl.Col(i)
	return v, row, err
}
