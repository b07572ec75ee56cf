package render

import (
	"encoding/json"
	"flag"
	"math"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/aplite/aplite/core/output"
	"github.com/aplite/aplite/vector"
)

var record = flag.Bool("record", false, "rewrite the golden files under testdata/")

// col builds an output column from values (nil for a null).
func col(name string, t vector.Type, vals ...any) output.Column {
	v := vector.New(t, len(vals))
	for _, x := range vals {
		if x == nil {
			v.AppendNull()
			continue
		}
		v.AppendValue(x)
	}
	return output.Column{Name: name, Type: t, Vec: v}
}

func ts(s string) int64 {
	t, err := time.Parse(time.RFC3339, s)
	if err != nil {
		panic(err)
	}
	return t.UnixNano()
}

// rawEvents is the output of `['logs'] | take 2`.
func rawEvents() *output.Output {
	return &output.Output{
		Table: output.Table{Rows: 2, Columns: []output.Column{
			col("_time", vector.DateTime, ts("2026-11-01T10:00:00Z"), ts("2026-11-01T10:00:01Z")),
			col("_sysTime", vector.DateTime, ts("2026-11-01T10:00:05Z"), nil),
			col("status", vector.Int, int64(200), nil),
			col("took", vector.TimeSpan, int64(1500*time.Millisecond), int64(0)),
			col("ratio", vector.Float, math.NaN(), 0.5),
			col("tags", vector.Dynamic, []any{"a", 1.0}, map[string]any{"k": time.Duration(2 * time.Second)}),
		}},
		Datasets: []string{"logs"},
		Fields:   map[string][]output.Field{"logs": {{Name: "_time", Type: vector.DateTime}, {Name: "status", Type: vector.Int}}},
		Start:    time.Date(2026, 11, 1, 0, 0, 0, 0, time.UTC),
		End:      time.Date(2026, 11, 2, 0, 0, 0, 0, time.UTC),
		Stats: output.Stats{BlocksExamined: 3, RowsExamined: 10, RowsMatched: 12, PagesDecoded: 7, HasBlockTime: true,
			MinBlockTime: ts("2026-11-01T09:00:00Z"), MaxBlockTime: ts("2026-11-01T11:00:00Z"),
			MinCursor: "c1", MaxCursor: "c2"},
		CacheStatus: output.Computed,
		Elapsed:     1500 * time.Microsecond,
	}
}

// binned is the output of `['logs'] | summarize count(), topk(uri, 1) by
// bin(_time, 1m), method` with its totals.
func binned() *output.Output {
	m := ts("2026-11-01T10:00:00Z")
	o := &output.Output{
		Table: output.Table{Rows: 3, Columns: []output.Column{
			col("_time", vector.DateTime, m, m, m+int64(time.Minute)),
			col("method", vector.String, "GET", "POST", "GET"),
			col("count_", vector.Int, int64(4), int64(1), int64(2)),
			col("topk_uri", vector.Dynamic, []any{"/a"}, []any{"/b"}, []any{"/a"}),
		}},
		Totals: &output.Table{Rows: 2, Columns: []output.Column{
			col("method", vector.String, "GET", "POST"),
			col("count_", vector.Int, int64(6), int64(1)),
			col("topk_uri", vector.Dynamic, []any{"/a"}, []any{"/b"}),
		}},
		Summary: &output.Summary{Keys: []string{"_time", "method"}, TimeKey: 0, BinSize: int64(time.Minute),
			Aggs: []output.Agg{
				{Op: "count", Columns: []string{"count_"}},
				{Op: "topk", Fields: []string{"uri"}, Args: []any{int64(1)}, Columns: []string{"topk_uri"}},
			}},
		Order:       []output.Order{{Field: "_time"}},
		Datasets:    []string{"logs"},
		Fields:      map[string][]output.Field{"logs": {{Name: "method", Type: vector.String}, {Name: "_sysTime", Type: vector.DateTime}}},
		Start:       time.Date(2026, 11, 1, 0, 0, 0, 0, time.UTC),
		End:         time.Date(2026, 11, 2, 0, 0, 0, 0, time.UTC),
		Stats:       output.Stats{NumGroups: 3},
		Messages:    []output.Message{{Priority: "error", Count: 1, Code: "apl_partialresult_damagedblocks", Msg: "dataset logs: 1 block(s)"}},
		Partial:     true,
		CacheStatus: output.CacheHit,
	}
	return o
}

// golden compares v, rendered as indented JSON, with testdata/name.
func golden(t *testing.T, name string, v any) {
	t.Helper()
	got, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	got = append(got, '\n')
	path := filepath.Join("testdata", name)
	if *record {
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (go test -record writes it)", err)
	}
	if string(got) != string(want) {
		t.Errorf("%s differs from the golden file:\n%s", name, got)
	}
}

// Both formats, for raw events and for a time-bucketed aggregation with
// totals, exactly as the clients decode them.
func TestGoldens(t *testing.T) {
	golden(t, "raw.tabular.json", Tabular(rawEvents()))
	golden(t, "raw.legacy.json", Legacy(rawEvents()))
	golden(t, "binned.tabular.json", Tabular(binned()))
	golden(t, "binned.legacy.json", Legacy(binned()))
}

// A series entry and the totals entry of the same group share an id, so
// a client can line them up.
func TestLegacyGroupIDsMatchTotals(t *testing.T) {
	l := Legacy(binned())
	ids := map[string]uint64{}
	for _, g := range l.Buckets.Totals {
		ids[g.Group["method"].(string)] = g.ID
	}
	if len(l.Buckets.Series) != 2 {
		t.Fatalf("%d intervals, want 2 (one per minute)", len(l.Buckets.Series))
	}
	for _, iv := range l.Buckets.Series {
		for _, g := range iv.Groups {
			if g.ID != ids[g.Group["method"].(string)] {
				t.Errorf("group %v: id %d, totals say %d", g.Group, g.ID, ids[g.Group["method"].(string)])
			}
		}
	}
}

// An output with no dataset (print, datatable) has no range and empty,
// non-null lists, which strict clients require.
func TestNoDataset(t *testing.T) {
	o := &output.Output{Table: output.Table{Rows: 1, Columns: []output.Column{col("x", vector.Int, int64(1))}}}
	tr := Tabular(o)
	if tr.Tables[0].Range != nil || tr.DatasetNames == nil || tr.Tables[0].Sources == nil || tr.Tables[0].Order == nil {
		t.Errorf("table %+v, datasetNames %v", tr.Tables[0], tr.DatasetNames)
	}
	if len(tr.Tables) != 1 {
		t.Errorf("%d tables, want 1 (no totals without a time-bucketed summarize)", len(tr.Tables))
	}
}
