package session

import (
	"context"
	"strconv"
	"testing"
)

// BenchmarkPlaceQuery is a query over a file read in place, alone and
// spread over helper sessions as the console spreads it over Web
// Workers: the path a dropped NDJSON file takes in the browser, measured
// natively (GOOS=js builds run the same code in one thread per engine).
// go test -run '^$' -bench PlaceQuery ./wasm/session
func BenchmarkPlaceQuery(b *testing.B) {
	data := realEvents(50_000)
	for _, helpers := range []int{0, 1} {
		b.Run("helpers="+strconv.Itoa(helpers), func(b *testing.B) {
			s := New()
			if _, err := s.OpenFile("events.ndjson", int64(len(data)), reader(data, nil), testNow); err != nil {
				b.Fatal(err)
			}
			if helpers > 0 {
				t := &testing.T{}
				withHelpers(t, s, "events.ndjson", data, helpers, nil)
			}
			b.SetBytes(int64(len(data)))
			b.ReportAllocs()
			for b.Loop() {
				if _, err := s.Query(context.Background(), "['events'] | summarize count() by status", QueryOptions{Now: testNow}); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(50_000*b.N)/b.Elapsed().Seconds(), "rows/s")
		})
	}
}
