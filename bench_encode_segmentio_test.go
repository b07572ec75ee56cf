//go:build segmentio

package main

import (
	"encoding/json"
	"fmt"
	"io"
	"testing"

	"github.com/bytedance/sonic"
	segjson "github.com/segmentio/encoding/json"

	"github.com/aplite/aplite/core"
	"github.com/aplite/aplite/core/render"
)

// tabularFixture is a `query -format json` body shaped like a log search:
// a timestamp, a status, a latency that is sometimes whole, free text.
func tabularFixture(rows int) *render.TabularResult {
	cols := make([][]any, 4)
	for i := range cols {
		cols[i] = make([]any, rows)
	}
	for r := 0; r < rows; r++ {
		cols[0][r] = fmt.Sprintf("2026-11-24T10:%02d:%02d.%06dZ", r/60%60, r%60, r*37%1000000)
		cols[1][r] = int64(200 + r%7*50)
		if r%3 == 0 {
			cols[2][r] = float64(r % 900)
		} else {
			cols[2][r] = float64(r%900) + 0.25
		}
		cols[3][r] = fmt.Sprintf("GET /api/v1/items/%d took a while for user-%d \"quoted\"", r, r%97)
	}
	return &render.TabularResult{Format: "tabular", Tables: []render.TabularTable{{Name: "0", Columns: cols}}}
}

func benchEncode(b *testing.B, marshal func(any) ([]byte, error)) {
	res := tabularFixture(50_000)
	out, err := marshal(res)
	if err != nil {
		b.Fatal(err)
	}
	b.SetBytes(int64(len(out)))
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		out, _ = marshal(res)
		_, _ = io.Discard.Write(out)
	}
	b.ReportMetric(float64(b.N)*50_000/b.Elapsed().Seconds(), "rows/s")
}

// The three encoders -format json could use, on the same result.
func BenchmarkEncodeTabularStdlib(b *testing.B)    { benchEncode(b, json.Marshal) }
func BenchmarkEncodeTabularSegmentio(b *testing.B) { benchEncode(b, segjson.Marshal) }
func BenchmarkEncodeTabularSonic(b *testing.B)     { benchEncode(b, sonic.Marshal) }
