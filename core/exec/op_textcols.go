package exec

import "github.com/aplite/aplite/vector"

// nullText stands for "no value" among the texts a textFunc returns.
const nullText = "\x00\x00null"

// textFunc splits one input text into a fixed number of output texts;
// ok false (or nullText in a slot) gives nulls.
type textFunc func(s string) (texts []string, ok bool)

// textColumns applies f to every live row of the string vector v (b's
// Batch) and returns ncol string columns of b.n rows, null where the input
// is null, the row is not live or f gave no value, plus whether f
// succeeded per row. A constant input is evaluated once; a dictionary
// input once per distinct value, its results sharing v's codes.
func textColumns(v *vector.Vector, b *Batch, ncol int, f textFunc) ([]*vector.Vector, []bool) {
	n := b.N
	ok := make([]bool, n)
	cols := make([]*vector.Vector, ncol)
	switch {
	case v.Const:
		var texts []string
		good := false
		if !v.IsNull(0) {
			texts, good = f(v.Str(0))
		}
		for i := range cols {
			cols[i] = vector.NewConst(vector.String, nil, n)
			if good && texts[i] != nullText {
				cols[i] = vector.NewConst(vector.String, texts[i], n)
			}
		}
		for r := range ok {
			ok[r] = good
		}
	case v.Codes != nil:
		textColumnsDict(v, b, cols, ok, f)
	default:
		for i := range cols {
			cols[i] = vector.New(vector.String, n)
		}
		live := liveMask(b)
		for r := 0; r < n; r++ {
			var texts []string
			good := false
			if (live == nil || live[r]) && !v.IsNull(r) {
				texts, good = f(v.Str(r))
			}
			ok[r] = good
			for i := range cols {
				if good && texts[i] != nullText {
					cols[i].AppendStr(texts[i])
				} else {
					cols[i].AppendNull()
				}
			}
		}
	}
	return cols, ok
}

// textColumnsDict is textColumns over a dictionary-encoded input.
func textColumnsDict(v *vector.Vector, b *Batch, cols []*vector.Vector, ok []bool, f textFunc) {
	n := b.N
	dictOK := make([]bool, len(v.Dict))
	dicts := make([][]string, len(cols))
	null := make([][]bool, len(cols))
	for i := range cols {
		dicts[i] = make([]string, len(v.Dict))
		null[i] = make([]bool, len(v.Dict))
	}
	for code, s := range v.Dict {
		texts, good := f(s)
		dictOK[code] = good
		for i := range cols {
			if good && texts[i] != nullText {
				dicts[i][code] = texts[i]
			} else {
				null[i][code] = true
			}
		}
	}
	valid := make([]vector.Bitmap, len(cols))
	for i := range cols {
		valid[i] = vector.NewBitmap(n)
	}
	live := liveMask(b)
	for r := 0; r < n; r++ {
		if v.IsNull(r) || (live != nil && !live[r]) {
			continue
		}
		code := v.Codes[r]
		ok[r] = dictOK[code]
		for i := range cols {
			if dictOK[code] && !null[i][code] {
				valid[i].Set(r)
			}
		}
	}
	for i := range cols {
		cols[i] = &vector.Vector{Type: vector.String, Len: n, Dict: dicts[i], Codes: v.Codes[:n], Valid: valid[i]}
	}
}

// liveMask returns a flag per physical row for a batch with a selection
// (nil when every row is live).
func liveMask(b *Batch) []bool {
	if b.Sel == nil {
		return nil
	}
	m := make([]bool, b.N)
	for _, r := range b.Sel {
		m[r] = true
	}
	return m
}
