package core

import (
	"context"
	"encoding/json"
	"testing"
	"time"

	"github.com/aplite/aplite/core/agg"
	"github.com/aplite/aplite/core/exec"
	"github.com/aplite/aplite/core/plan"
	"github.com/aplite/aplite/core/store"
	"github.com/aplite/aplite/vector"
)

// referenceQueries are the seven reference queries of bench/query_test.go
// over the fixture's dataset.
var referenceQueries = []struct{ id, apl string }{
	{"q1", `['logs'] | where status == 500 | count`},
	{"q2", `['logs'] | summarize count() by status`},
	{"q3", `['logs'] | summarize avg(req_duration_ms) by method`},
	{"q4", `['logs'] | summarize count() by bin(_time, 1m)`},
	{"q5", `['logs'] | summarize count() by uri | top 10 by count_`},
	{"q6", `['logs'] | summarize percentile(req_duration_ms, 95) by server_datacenter`},
	{"q7", `['logs'] | where uri contains "api" | count`},
}

// oldFragment is the fragment as it travelled before plans: the query
// text and the source schema, which the runner parsed and planned again.
type oldFragment struct {
	APL     string           `json:"apl"`
	Start   time.Time        `json:"start"`
	End     time.Time        `json:"end"`
	Now     time.Time        `json:"now"`
	Dataset string           `json:"dataset"`
	Parts   []string         `json:"parts"`
	Schema  []oldFragmentCol `json:"schema"`
}

type oldFragmentCol struct {
	Name string      `json:"name"`
	Type vector.Type `json:"type"`
}

// benchFragments plans each reference query on node a and returns, per
// query, the old and the new wire form of its fragment over every block.
func benchFragments(b *testing.B, c *testCluster) (old, cur [][]byte) {
	for _, q := range referenceQueries {
		p, pl, _, err := c.a.prepare(context.Background(), &exec.Request{APL: q.apl, Now: fixtureNow}, nil, fixtureNow)
		if err != nil {
			b.Fatal(err)
		}
		src := pl.Src.(*exec.ScanSource)
		k, _ := pl.FirstBlocking()
		pf, ok := exec.FragmentPlan(src, pl.Stages[:min(k+1, len(pl.Stages))])
		if !ok {
			b.Fatalf("%s does not travel", q.id)
		}
		of := oldFragment{APL: q.apl, Now: fixtureNow, Dataset: "logs"}
		for _, sp := range src.Parts {
			pf.Scan.Parts = append(pf.Scan.Parts, store.PartKey(sp.Part))
		}
		of.Parts = pf.Scan.Parts
		for _, col := range src.Sch {
			of.Schema = append(of.Schema, oldFragmentCol(col))
		}
		js, err := pf.Encode()
		if err != nil {
			b.Fatal(err)
		}
		ob, _ := json.Marshal(of)
		nb, _ := json.Marshal(&exec.Fragment{Plan: js, Now: fixtureNow})
		old, cur = append(old, ob), append(cur, nb)
		p.release()
	}
	return old, cur
}

// BenchmarkFragmentReceive is what a node does with a fragment before it
// scans: parse and plan the text (before plans) against decode and build
// the plan (now). Bytes are the fragment's size on the wire; there are
// no rows, as nothing is scanned.
func BenchmarkFragmentReceive(b *testing.B) {
	c := newTestCluster(b)
	old, cur := benchFragments(b, c)
	ctx := context.Background()
	for i, q := range referenceQueries {
		b.Run(q.id+"/parse+plan", func(b *testing.B) {
			var f oldFragment
			b.SetBytes(int64(len(old[i])))
			b.ReportAllocs()
			for b.Loop() {
				if err := json.Unmarshal(old[i], &f); err != nil {
					b.Fatal(err)
				}
				p, _, _, err := c.b.prepare(ctx, &exec.Request{APL: f.APL, Now: f.Now}, nil, f.Now)
				if err != nil {
					b.Fatal(err)
				}
				p.release()
			}
			b.ReportMetric(float64(len(old[i])), "wire-bytes")
		})
		b.Run(q.id+"/decode+build", func(b *testing.B) {
			var f exec.Fragment
			b.SetBytes(int64(len(cur[i])))
			b.ReportAllocs()
			for b.Loop() {
				if err := json.Unmarshal(cur[i], &f); err != nil {
					b.Fatal(err)
				}
				pf, err := plan.Decode(f.Plan)
				if err != nil {
					b.Fatal(err)
				}
				snap, err := c.b.cat.Snapshot(pf.Scan.Dataset)
				if err != nil {
					b.Fatal(err)
				}
				if _, err := exec.BuildFragment(pf, snap, agg.Context{Start: f.Start, End: f.End}); err != nil {
					b.Fatal(err)
				}
				snap.Release()
			}
			b.ReportMetric(float64(len(cur[i])), "wire-bytes")
		})
	}
}
