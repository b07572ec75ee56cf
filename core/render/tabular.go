// Package render turns a query's output (core/output) into the response
// bodies of the API: the tabular format (`format=tabular`) and the legacy
// format (`format=legacy`, the legacy structured query); and into the
// text formats of the command line (text.go: an aligned table, CSV,
// NDJSON, an array of row objects). The server, the WASM build and the
// command line render through it, so one answer looks the same wherever
// it is asked. Parquet files are written by fileformat, which owns that
// format's encoding.
//
// Rendering reads only the Output: it never reaches back into the plan or
// the run that made it.
package render

import (
	"strings"
	"time"

	"github.com/aplite/aplite/core/output"
)

// timeField is the event time every dataset has.
const timeField = "_time"

// Tabular renders o in the tabular format.
func Tabular(o *output.Output) *TabularResult {
	out := &TabularResult{
		Format:        "tabular",
		Status:        status(o),
		DatasetNames:  datasetNames(o),
		FieldsMetaMap: fieldsMeta(o),
	}
	main := table(o, "0", &o.Table)
	sum := o.Summary
	if sum != nil {
		for _, k := range sum.Keys {
			main.Groups = append(main.Groups, NameRef{Name: k})
		}
		markAggs(&main, sum)
		if sum.TimeKey >= 0 {
			main.Buckets = &BucketsRef{Field: sum.Keys[sum.TimeKey], Size: sum.BinSize}
		}
	}
	out.Tables = append(out.Tables, main)
	if sum != nil && o.Totals != nil {
		t := table(o, "_totals", o.Totals)
		t.Order = []OrderRef{}
		for i, k := range sum.Keys {
			if i != sum.TimeKey {
				t.Groups = append(t.Groups, NameRef{Name: k})
			}
		}
		markAggs(&t, sum)
		out.Tables = append(out.Tables, t)
	}
	return out
}

// table renders one table of the result.
func table(o *output.Output, name string, tb *output.Table) TabularTable {
	t := TabularTable{
		Name:    name,
		Sources: []NameRef{},
		Fields:  []TabularField{},
		Order:   order(o),
		Groups:  []NameRef{},
		Columns: [][]any{},
	}
	for _, d := range o.Datasets {
		t.Sources = append(t.Sources, NameRef{Name: d})
	}
	for _, c := range tb.Columns {
		t.Fields = append(t.Fields, TabularField{Name: c.Name, Type: c.Type.APIName()})
		col := make([]any, tb.Rows)
		for i := range col {
			col[i] = output.Cell(c.Vec, i)
		}
		t.Columns = append(t.Columns, col)
	}
	if len(o.Datasets) > 0 {
		t.Range = rangeRef(o)
	}
	return t
}

// markAggs sets fields[].agg on the aggregation columns, as the clients
// decode them.
func markAggs(t *TabularTable, sum *output.Summary) {
	for _, a := range sum.Aggs {
		for _, n := range a.Columns {
			for i := range t.Fields {
				if t.Fields[i].Name == n {
					t.Fields[i].Agg = &AggInfo{Name: a.Op, Fields: a.Fields, Args: a.Args}
				}
			}
		}
	}
}

// order is the result's order as the API reports it.
func order(o *output.Output) []OrderRef {
	out := []OrderRef{}
	for _, k := range o.Order {
		out = append(out, OrderRef{Field: k.Field, Desc: k.Desc})
	}
	return out
}

// rangeRef is the queried time range.
func rangeRef(o *output.Output) *RangeRef {
	start, end := o.Start, o.End
	if start.IsZero() {
		start = time.Unix(0, 0)
	}
	return &RangeRef{Field: timeField, Start: start.UTC().Format(time.RFC3339Nano), End: end.UTC().Format(time.RFC3339Nano)}
}

func datasetNames(o *output.Output) []string {
	if o.Datasets == nil {
		return []string{}
	}
	return o.Datasets
}

// fieldsMeta lists each dataset's fields with their API types; system
// fields (leading underscore) are not listed.
func fieldsMeta(o *output.Output) map[string][]FieldMeta {
	out := map[string][]FieldMeta{}
	for _, d := range o.Datasets {
		out[d] = []FieldMeta{}
		for _, f := range o.Fields[d] {
			if strings.HasPrefix(f.Name, "_") {
				continue
			}
			out[d] = append(out[d], FieldMeta{Name: f.Name, Type: f.Type.APIName()})
		}
	}
	return out
}

// status builds the statistics block shared by both formats.
func status(o *output.Output) Status {
	st := o.Stats
	s := Status{
		ElapsedTime:    o.Elapsed.Microseconds(),
		BlocksExamined: st.BlocksExamined,
		BlocksMatched:  st.BlocksMatched,
		BlocksCached:   st.BlocksCached,
		RowsExamined:   st.RowsExamined,
		RowsMatched:    min(st.RowsMatched, st.RowsExamined),
		PagesDecoded:   st.PagesDecoded,
		NumGroups:      st.NumGroups,
		CacheStatus:    o.CacheStatus,
		MinBlockTime:   output.FormatTime(0),
		MaxBlockTime:   output.FormatTime(0),
		MinCursor:      st.MinCursor,
		MaxCursor:      st.MaxCursor,
		Messages:       o.Messages,
		IsPartial:      o.Partial,
	}
	if st.HasBlockTime {
		s.MinBlockTime = output.FormatTime(st.MinBlockTime)
		s.MaxBlockTime = output.FormatTime(st.MaxBlockTime)
	}
	return s
}
