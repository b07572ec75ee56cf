package core

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/aplite/aplite/core/exec"
)

// Scratch is handed out only where nothing keeps a batch after the sink
// consumed it: where and extend into summarize or count, not into top
// (it keeps its candidate rows' batches) nor through stages that are not
// known to keep nothing.
func TestScratchOnlyWhereBatchesDie(t *testing.T) {
	e := opsStoreEngine(t, 10)
	for _, c := range []struct {
		q    string
		want bool
	}{
		{"events | where k > 1 | extend y = k * 2 | summarize sum(y)", true},
		{"events | extend y = k * 2 | project y | count", true},
		{"events | where k > 1 | extend y = k * 2 | top 3 by y", false},
		{"events | extend y = k * 2 | sort by y", false},
		{"events | extend y = k * 2 | mv-expand tags | summarize sum(y)", false},
	} {
		pn, p, x, err := e.prepare(context.Background(), &exec.Request{APL: c.q}, nil, time.Now())
		if err != nil {
			t.Fatal(err)
		}
		k, blk := p.FirstBlocking()
		s, err := blk.NewSink(x)
		pn.release()
		if err != nil {
			t.Fatal(err)
		}
		if got := exec.ScratchFor(p.Stages[:k], s, 2) != nil; got != c.want {
			t.Errorf("%s: scratch %v, want %v", c.q, got, c.want)
		}
	}
}

// Queries whose batches use scratch buffers, over enough parts that each
// worker reuses them many times, give the values every row gives; and a
// top, whose sink keeps batches, is not disturbed by later batches.
func TestScratchQueriesOverManyBatches(t *testing.T) {
	const n = 20000
	e := opsStoreEngine(t, n)
	var sumY, sumW int64
	var sumZ float64
	count := 0
	for i := 0; i < n; i++ {
		if k := i % 10; k >= 3 {
			y := int64(k) * 2
			sumY += y
			sumZ += float64(y) + 0.5
			sumW += int64(i) * 3
			count++
		}
	}
	cases := []struct{ q, want string }{
		{"events | where k >= 3 | extend y = k * 2, z = k * 2 + 0.5, w = (_time - datetime(2024-01-01)) / 1s * 3 | summarize sum(y), sum(z), sum(w), count()",
			fmt.Sprintf("[%d,%g,%d,%d]", sumY, sumZ, sumW, count)},
		{"events | where k == 7 | extend y = (_time - datetime(2024-01-01)) / 1s + k * 2 | top 3 by y | project y",
			fmt.Sprintf("[%d] [%d] [%d]", n-3+14, n-13+14, n-23+14)},
	}
	for _, c := range cases {
		for range 3 {
			res, err := e.Query(context.Background(), &exec.Request{APL: c.q, Workers: 2, DisableCache: true})
			if err != nil {
				t.Fatalf("%s: %v", c.q, err)
			}
			if got := fmt.Sprint(opsRows(t, res)); got != "["+c.want+"]" {
				t.Fatalf("%s:\n got %s\nwant [%s]", c.q, got, c.want)
			}
		}
	}
}
