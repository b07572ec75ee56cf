// Package output is the plain answer of one query run: its typed columns,
// the totals of a time-bucketed aggregation, what rendering needs to know
// of the query's shape (group keys, aggregations, order, range) and the
// scan's statistics.
//
// The engine (core) produces an Output at the end of a run; core/render
// turns it into the API's tabular and legacy formats and the text formats
// (tables, CSV, NDJSON), fileformat into Parquet. An Output refers to nothing of the plan or
// of the run that made it, so it can be cached, shipped or rendered after
// the run's memory is gone. Nothing mutates an Output once it is returned;
// a caller that adds messages works on a copy (WithMessage).
package output

import (
	"slices"
	"time"

	"github.com/aplite/aplite/vector"
)

// Cache statuses, as the API's status.cacheStatus reports them.
const (
	// Computed: the result was computed by scanning.
	Computed = 1
	// CacheHit: the result was served from the result cache.
	CacheHit = 2
)

// Output is the answer of one query run.
type Output struct {
	// Table holds the result rows.
	Table Table
	// Totals is the time-bucketed aggregation re-aggregated without its
	// time key (the API's _totals table); nil for every other result.
	Totals *Table
	// Summary describes the aggregation the result comes from; nil when
	// the result is not the output of a summarize.
	Summary *Summary
	// Order is the result's order when it is by plain columns.
	Order []Order
	// Datasets are the datasets the query read, in query order.
	Datasets []string
	// Fields lists, per dataset, the fields the query's scan saw.
	Fields map[string][]Field
	// Start and End are the queried time range (End is the query's now
	// when the request left it open).
	Start, End time.Time
	// Stats are the scan's counters.
	Stats Stats
	// Messages are notes and warnings for the status block.
	Messages []Message
	// Partial is set when rows are known to be missing (damaged blocks,
	// unreachable query nodes); Messages say which.
	Partial bool
	// CacheStatus is Computed or CacheHit.
	CacheStatus int
	// Elapsed is the wall time of the run (or of the cache lookup).
	Elapsed time.Duration
}

// Table is a set of equally long typed columns.
type Table struct {
	Columns []Column
	Rows    int
}

// Column is one named, typed column of a table.
type Column struct {
	Name string
	Type vector.Type
	Vec  *vector.Vector
}

// Summary is the shape of a summarize whose output the result is.
type Summary struct {
	// Keys are the group-by column names, in order.
	Keys []string
	// TimeKey is the index in Keys of a bin(_time, w) key, or -1.
	TimeKey int
	// BinSize is that key's bin width in ns.
	BinSize int64
	// Aggs are the aggregations, in order.
	Aggs []Agg
}

// Agg is one aggregation of a summarize.
type Agg struct {
	// Op is the API's name of the operation ("count", "topk", or
	// "computed" for those the API has no name for).
	Op string
	// Fields are the fields it reads; Args its constant arguments
	// (topk(remote_ip, 1) reads ["remote_ip"] with args [1]).
	Fields []string
	Args   []any
	// Columns are the output columns it produces.
	Columns []string
}

// Order is one sort key of the result.
type Order struct {
	Field string
	Desc  bool
}

// Field is one field of a dataset as the query saw it.
type Field struct {
	Name string
	Type vector.Type
}

// Stats are the counters of a run.
type Stats struct {
	BlocksExamined, BlocksMatched, BlocksCached int64
	RowsExamined, RowsMatched                   int64
	// PagesDecoded counts the column pages decoded for blocks of which
	// the query needed only some rows (whole columns are not counted).
	PagesDecoded int64
	// NumGroups is the number of groups of the final aggregation.
	NumGroups int64
	// MinBlockTime and MaxBlockTime bound the _time of the blocks read,
	// when HasBlockTime.
	MinBlockTime, MaxBlockTime int64
	HasBlockTime               bool
	// MinCursor and MaxCursor continue a raw result from its oldest or
	// newest row; empty when the result has no _time column.
	MinCursor, MaxCursor string
}

// Message is a note or warning about a result.
type Message struct {
	Priority string `json:"priority"`
	Count    int    `json:"count"`
	Code     string `json:"code"`
	Msg      string `json:"msg"`
}

// WithMessage returns a copy of o with m added; o itself (which a cache
// may share) is unchanged.
func (o *Output) WithMessage(m Message) *Output {
	cp := *o
	cp.Messages = append(slices.Clip(o.Messages), m)
	cp.Partial = cp.Partial || m.Priority == "error" // an error message says rows are missing
	return &cp
}

// Columns returns the result's column names and API type names.
func (o *Output) Columns() (names, types []string) {
	for _, c := range o.Table.Columns {
		names = append(names, c.Name)
		types = append(types, c.Type.APIName())
	}
	return names, types
}

// NumRows returns the number of result rows.
func (o *Output) NumRows() int { return o.Table.Rows }

// Value returns the JSON-ready value of row i, column j (see Cell).
func (o *Output) Value(i, j int) any { return Cell(o.Table.Columns[j].Vec, i) }

// RowsExamined is the number of stored rows the run scanned.
func (o *Output) RowsExamined() int64 { return o.Stats.RowsExamined }

// Index returns the position of the named column, or -1.
func (t *Table) Index(name string) int {
	for i, c := range t.Columns {
		if c.Name == name {
			return i
		}
	}
	return -1
}
