package core

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/aplite/aplite/core/exec"
	"github.com/aplite/aplite/core/fn"
	"github.com/aplite/aplite/core/store"
)

// TestMixedOldBlocks reads block files written before mixed columns had
// an unboxed side (testdata/mixedblocks, README there): the field x is
// stored as long, real and string columns, as the writer always stored
// such a field. The answers match the source events and the boxed path.
func TestMixedOldBlocks(t *testing.T) {
	dir := t.TempDir()
	if err := os.CopyFS(filepath.Join(dir, "mixed"), os.DirFS(filepath.Join("testdata", "mixedblocks", "mixed"))); err != nil {
		t.Fatal(err)
	}
	db, err := store.Open(dir, store.Options{NoSync: true, CompactInterval: time.Hour, FlushInterval: time.Hour})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	e := NewEngine(exec.StoreCatalog(db))
	src, err := os.ReadFile(filepath.Join("testdata", "mixedblocks", "source.ndjson"))
	if err != nil {
		t.Fatal(err)
	}
	var sum float64
	var over100, na, maxInt int64 = 0, 0, -1 << 62
	for _, line := range bytes.Split(bytes.TrimSpace(src), []byte("\n")) {
		var ev struct{ X any }
		d := json.NewDecoder(bytes.NewReader(line))
		d.UseNumber()
		if err := d.Decode(&ev); err != nil {
			t.Fatal(err)
		}
		switch x := ev.X.(type) {
		case json.Number:
			f, _ := x.Float64()
			sum += f
			if f > 100 {
				over100++
			}
			if i, err := x.Int64(); err == nil {
				maxInt = max(maxInt, i)
			}
		case string:
			if f, ok := fn.ParseFloat(x); ok {
				sum += f
				if f > 100 {
					over100++
				}
			}
			if x == "n/a" {
				na++
			}
		}
	}
	one := func(r *exec.Request) { r.Workers = 1 }
	got := rows(mustQuery(t, e, `mixed | summarize c = count(), s = sum(x), hi = max(x)`, one))[0]
	if s, _ := got[1].(float64); got[0] != int64(900) || fmt.Sprintf("%.6f", s) != fmt.Sprintf("%.6f", sum) || fmt.Sprint(got[2]) != fmt.Sprint(maxInt) {
		t.Errorf("count, sum, max = %v, want 900, %.6f, %d", got, sum, maxInt)
	}
	for q, want := range map[string]int64{`mixed | where x > 100 | count`: over100, `mixed | where x == "n/a" | count`: na} {
		if got := rows(mustQuery(t, e, q))[0][0]; got != want {
			t.Errorf("%s = %v, want %d", q, got, want)
		}
	}
	for _, q := range mixedQueries {
		q = "mixed" + q[len("events"):]
		fast := stableJSON(mustQuery(t, e, q, one))
		exec.MixedColumns = false
		boxed := stableJSON(mustQuery(t, e, q, one, func(r *exec.Request) { r.NoColumnCache = true }))
		exec.MixedColumns = true
		if fast != boxed {
			t.Errorf("%s\n got %s\nwant %s", q, fast, boxed)
		}
	}
}
