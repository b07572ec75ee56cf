package store

import (
	"slices"

	"github.com/aplite/aplite/vector"
)

// ColKey identifies a stored column: a field name and one type. A field
// that holds values of several types in the same rows batch or block is
// kept as several columns, one per type, each null where the row's value
// has another type, so no value is ever coerced or dropped.
type ColKey struct {
	Name string
	Type vector.Type
}

// Rows is a columnar batch of events: what one ingest request produces,
// what one WAL record holds, and the unit the in-memory buffer stores.
// Every column has exactly N rows. Time holds each event's _time in ns;
// SysTime is the ingest time shared by the batch (_sysTime).
type Rows struct {
	N       int
	Time    []int64
	SysTime int64
	Keys    []ColKey         // column order of first appearance
	Cols    []*vector.Vector // Cols[i] is the column for Keys[i]
}

// Column returns the column for key, or nil.
func (r *Rows) Column(k ColKey) *vector.Vector {
	for i, kk := range r.Keys {
		if kk == k {
			return r.Cols[i]
		}
	}
	return nil
}

// RowsBuilder accumulates events into a Rows batch without building a map
// per event: decoders call Begin, the Set* methods for each field, then
// End (or Abort to discard a failed event). Setting the same field twice in
// one event keeps the last value.
//
// Columns are padded with nulls lazily: a column not set by an event is
// left short and filled up in bulk when it is next set, or by Finish. So an
// event costs O(fields it sets), not O(columns in the batch), which keeps
// wide sparse data (hundreds of label fields, a few per event) fast. While
// building, column i holds N+1 values exactly when the current event set it.
type RowsBuilder struct {
	rows    Rows
	index   map[ColKey]int
	open    bool
	time    int64
	hasTime bool
	// colsAtBegin is len(Cols) when the event began, so Abort can drop the
	// columns only the aborted event created.
	colsAtBegin int
	// reserve is the row capacity (set by Reserve) new columns start with.
	reserve int
}

// NewRowsBuilder returns an empty builder.
func NewRowsBuilder() *RowsBuilder {
	return &RowsBuilder{index: make(map[ColKey]int)}
}

// Len returns the number of completed events.
func (b *RowsBuilder) Len() int { return b.rows.N }

// Begin starts a new event.
func (b *RowsBuilder) Begin() {
	b.open = true
	b.hasTime = false
	b.colsAtBegin = len(b.rows.Cols)
}

// SetTime sets the current event's _time (ns since the epoch).
func (b *RowsBuilder) SetTime(ns int64) { b.time, b.hasTime = ns, true }

// HasTime reports whether SetTime was called for the current event.
func (b *RowsBuilder) HasTime() bool { return b.hasTime }

// col returns the column for k, creating it (back-filled with nulls) when
// it is new, and marks it touched. When k was already set in this event
// the earlier value is undone so the new one replaces it.
func (b *RowsBuilder) col(k ColKey) *vector.Vector { return b.at(b.Ref(k)) }

// Ref returns a handle to the column for k, creating the column
// (back-filled with nulls) when it is new. Decoders that see the same
// field in every event cache the handle and call the Set*At methods, which
// skip the map lookup Set* does per call. A handle stays valid until
// Finish, or until Abort drops the columns the aborted event created
// (those with a handle >= NumCols() afterwards).
func (b *RowsBuilder) Ref(k ColKey) int {
	i, ok := b.index[k]
	if !ok {
		v := vector.New(k.Type, max(b.rows.N+1, b.reserve)) // nulls come lazily
		i = len(b.rows.Cols)
		b.index[k] = i
		b.rows.Keys = append(b.rows.Keys, k)
		b.rows.Cols = append(b.rows.Cols, v)
	}
	return i
}

// Reserve makes room for n more events in every column, existing and
// future, so a decoder that can estimate the event count of a body avoids
// growing (and copying) each column log2(n) times.
func (b *RowsBuilder) Reserve(n int) {
	b.reserve = b.rows.N + n
	b.rows.Time = slices.Grow(b.rows.Time, n)
	for _, v := range b.rows.Cols {
		switch {
		case v.Bools != nil:
			v.Bools = slices.Grow(v.Bools, n)
		case v.Ints != nil:
			v.Ints = slices.Grow(v.Ints, n)
		case v.Floats != nil:
			v.Floats = slices.Grow(v.Floats, n)
		case v.Strs != nil:
			v.Strs = slices.Grow(v.Strs, n)
		case v.Dyns != nil:
			v.Dyns = slices.Grow(v.Dyns, n)
		}
	}
}

// NumCols returns the number of columns (one per field name and type).
func (b *RowsBuilder) NumCols() int { return len(b.rows.Cols) }

// at returns column i ready for the current event's value, undoing a value
// set earlier in the same event.
func (b *RowsBuilder) at(i int) *vector.Vector {
	v := b.rows.Cols[i]
	if n := b.rows.N; v.Len > n {
		truncate(v, n)
	} else if v.Len < n {
		padNulls(v, n)
	}
	return v
}

// Unset removes the value the current event set in column ref, as if it
// had never been set (used when a repeated key changes the field's type).
func (b *RowsBuilder) Unset(ref int) {
	if v := b.rows.Cols[ref]; v.Len > b.rows.N {
		truncate(v, b.rows.N)
	}
}

// padNulls appends nulls to v until it has n rows, in bulk.
func padNulls(v *vector.Vector, n int) {
	from := v.Len
	k := n - from
	switch v.Type {
	case vector.Null:
		v.Len = n
		return
	case vector.Bool:
		v.Bools = extend(v.Bools, k)
	case vector.Int, vector.DateTime, vector.TimeSpan:
		v.Ints = extend(v.Ints, k)
	case vector.Float:
		v.Floats = extend(v.Floats, k)
	case vector.String:
		v.Strs = extend(v.Strs, k)
	case vector.Dynamic:
		v.Dyns = extend(v.Dyns, k)
	}
	if v.Valid == nil {
		v.Valid = vector.NewBitmapSet(from)
	}
	v.Valid = v.Valid.Grow(n)
	clearBits(v.Valid, from, n)
	v.Len = n
}

// extend appends k zero values to s without clearing: the capacity past
// len(s) is always zero (fresh from make, or zeroed by truncate), and
// slices.Grow carries that zero tail over when it reallocates.
func extend[T any](s []T, k int) []T {
	return slices.Grow(s, k)[:len(s)+k]
}

// clearBits clears bits [from, to) of b, a word at a time where it can.
func clearBits(b vector.Bitmap, from, to int) {
	for ; from < to && from&63 != 0; from++ {
		b.Clear(from)
	}
	for ; from+64 <= to; from += 64 {
		b[from>>6] = 0
	}
	for ; from < to; from++ {
		b.Clear(from)
	}
}

// truncate drops rows at and after n (used when a field repeats in one
// event, or the event is aborted). The dropped slots are zeroed, so the
// capacity past a column's length is always zero and padNulls can extend
// into it without clearing (and no stale string stays reachable).
func truncate(v *vector.Vector, n int) {
	v.Len = n
	switch {
	case v.Bools != nil:
		v.Bools = cut(v.Bools, n)
	case v.Ints != nil:
		v.Ints = cut(v.Ints, n)
	case v.Floats != nil:
		v.Floats = cut(v.Floats, n)
	case v.Strs != nil:
		v.Strs = cut(v.Strs, n)
	case v.Dyns != nil:
		v.Dyns = cut(v.Dyns, n)
	}
}

// cut shortens s to n, zeroing what it drops.
func cut[T any](s []T, n int) []T {
	clear(s[n:])
	return s[:n]
}

// SetNull records an explicit JSON null for name. A null has no type; it is
// stored as a null in a Null-typed column so the field exists.
func (b *RowsBuilder) SetNull(name string) { b.col(ColKey{name, vector.Null}).AppendNull() }

// SetBool sets a boolean field of the current event.
func (b *RowsBuilder) SetBool(name string, x bool) { b.col(ColKey{name, vector.Bool}).AppendBool(x) }

// SetInt sets an integer field of the current event.
func (b *RowsBuilder) SetInt(name string, x int64) { b.col(ColKey{name, vector.Int}).AppendInt(x) }

// SetFloat sets a float field of the current event.
func (b *RowsBuilder) SetFloat(name string, x float64) {
	b.col(ColKey{name, vector.Float}).AppendFloat(x)
}

// SetString sets a string field of the current event.
func (b *RowsBuilder) SetString(name string, x string) {
	b.col(ColKey{name, vector.String}).AppendStr(x)
}

// SetDynamic sets an array or map-field value of the current event.
func (b *RowsBuilder) SetDynamic(name string, x any) {
	b.col(ColKey{name, vector.Dynamic}).AppendDyn(x)
}

// The Set*At methods set a value through a handle from Ref; the handle's
// column must have the method's type (Null for SetNullAt).

// SetNullAt records an explicit null in column ref.
func (b *RowsBuilder) SetNullAt(ref int) { b.at(ref).AppendNull() }

// SetBoolAt sets a boolean value in column ref.
func (b *RowsBuilder) SetBoolAt(ref int, x bool) { b.at(ref).AppendBool(x) }

// SetIntAt sets an integer value in column ref.
func (b *RowsBuilder) SetIntAt(ref int, x int64) { b.at(ref).AppendInt(x) }

// SetFloatAt sets a float value in column ref.
func (b *RowsBuilder) SetFloatAt(ref int, x float64) { b.at(ref).AppendFloat(x) }

// SetStringAt sets a string value in column ref.
func (b *RowsBuilder) SetStringAt(ref int, x string) { b.at(ref).AppendStr(x) }

// SetDynamicAt sets a dynamic value in column ref.
func (b *RowsBuilder) SetDynamicAt(ref int, x any) { b.at(ref).AppendDyn(x) }

// End completes the current event at time ingestTime when no SetTime was
// made; the columns it did not set read null for it.
func (b *RowsBuilder) End(ingestTime int64) {
	if !b.hasTime {
		b.time = ingestTime
	}
	b.rows.Time = append(b.rows.Time, b.time)
	b.rows.N++
	b.open = false
}

// Abort discards the current event, including the columns only it
// created, so a rejected event leaves no trace in the batch.
func (b *RowsBuilder) Abort() {
	for _, v := range b.rows.Cols {
		if v.Len > b.rows.N {
			truncate(v, b.rows.N)
		}
	}
	if n := b.colsAtBegin; n < len(b.rows.Cols) {
		for _, k := range b.rows.Keys[n:] {
			delete(b.index, k)
		}
		clear(b.rows.Keys[n:])
		clear(b.rows.Cols[n:])
		b.rows.Keys = b.rows.Keys[:n]
		b.rows.Cols = b.rows.Cols[:n]
	}
	b.open = false
}

// Finish returns the batch built so far with SysTime set and resets the
// builder.
func (b *RowsBuilder) Finish(sysTime int64) *Rows {
	if b.open {
		b.Abort() // an unfinished event is not part of the batch
	}
	for _, v := range b.rows.Cols {
		if v.Len < b.rows.N {
			padNulls(v, b.rows.N)
		}
	}
	r := b.rows
	r.SysTime = sysTime
	*b = RowsBuilder{index: make(map[ColKey]int)}
	return &r
}
