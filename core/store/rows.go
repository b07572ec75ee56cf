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
type RowsBuilder struct {
	rows  Rows
	index map[ColKey]int
	// touched marks columns set in the current row, so End can pad the rest.
	touched []bool
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
	for i := range b.touched {
		b.touched[i] = false
	}
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
		v := vector.New(k.Type, max(b.rows.N+1, b.reserve))
		for j := 0; j < b.rows.N; j++ {
			v.AppendNull()
		}
		i = len(b.rows.Cols)
		b.index[k] = i
		b.rows.Keys = append(b.rows.Keys, k)
		b.rows.Cols = append(b.rows.Cols, v)
		b.touched = append(b.touched, false)
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
	if b.touched[i] {
		truncate(v, b.rows.N)
	}
	b.touched[i] = true
	return v
}

// Unset removes the value the current event set in column ref, as if it
// had never been set (used when a repeated key changes the field's type).
func (b *RowsBuilder) Unset(ref int) {
	if b.touched[ref] {
		truncate(b.rows.Cols[ref], b.rows.N)
		b.touched[ref] = false
	}
}

// truncate drops rows at and after n (used when a field repeats in one event).
func truncate(v *vector.Vector, n int) {
	v.Len = n
	switch {
	case v.Bools != nil:
		v.Bools = v.Bools[:n]
	case v.Ints != nil:
		v.Ints = v.Ints[:n]
	case v.Floats != nil:
		v.Floats = v.Floats[:n]
	case v.Strs != nil:
		v.Strs = v.Strs[:n]
	case v.Dyns != nil:
		v.Dyns = v.Dyns[:n]
	}
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
// made, padding every column it did not set with a null.
func (b *RowsBuilder) End(ingestTime int64) {
	for i, t := range b.touched {
		if !t {
			b.rows.Cols[i].AppendNull()
		}
	}
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
	for i, t := range b.touched {
		if t {
			truncate(b.rows.Cols[i], b.rows.N)
			b.touched[i] = false
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
		b.touched = b.touched[:n]
	}
	b.open = false
}

// Finish returns the batch built so far with SysTime set and resets the
// builder.
func (b *RowsBuilder) Finish(sysTime int64) *Rows {
	r := b.rows
	r.SysTime = sysTime
	*b = RowsBuilder{index: make(map[ColKey]int)}
	return &r
}
