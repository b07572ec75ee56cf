package store

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"testing"
	"time"
)

// httpLogGen produces realistic HTTP access-log events (about 370 bytes
// each as NDJSON), seeded so every run sees the same data.
type httpLogGen struct {
	rng   *rand.Rand
	zipfU *rand.Zipf
	zipfA *rand.Zipf
	times []int64
	next  int
}

var (
	genMethods = []string{"GET", "GET", "GET", "GET", "GET", "GET", "GET", "POST", "POST", "PUT", "DELETE", "PATCH", "HEAD"}
	genStatus  = []int64{200, 200, 200, 200, 200, 200, 200, 200, 200, 200, 200, 200, 201, 204, 301, 304, 400, 401, 403, 404, 404, 500, 502, 503}
	genDCs     = []string{"eu-west-1", "us-east-1", "us-west-2", "ap-south-1", "eu-central-1"}
	genPaths   = []string{"/api/v1/users/%d", "/api/v1/orders/%d/items", "/static/img/%d.png", "/blog/posts/%d", "/api/v2/search?q=term%d", "/products/%d/reviews"}
	genAgents  = func() []string {
		var out []string
		for i := 0; i < 24; i++ {
			out = append(out, fmt.Sprintf("Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/%d.0.%d.%d Safari/537.36", 100+i, 4000+i*37, i*11))
		}
		return out
	}()
	genCities = func() [][2]string {
		countries := []string{"DE", "US", "FR", "GB", "JP", "BR", "IN", "CA", "AU", "NL"}
		var out [][2]string
		for i := 0; i < 120; i++ {
			out = append(out, [2]string{fmt.Sprintf("City-%03d", i), countries[i%len(countries)]})
		}
		return out
	}()
)

// newHTTPLogGen prepares n events with _time over one day (ms precision,
// sorted, as a log shipper would send them).
func newHTTPLogGen(seed uint64, n int) *httpLogGen {
	rng := rand.New(rand.NewPCG(seed, seed^0x5eed))
	g := &httpLogGen{rng: rng,
		zipfU: rand.NewZipf(rng, 1.1, 1, 60000),
		zipfA: rand.NewZipf(rng, 1.3, 1, uint64(len(genAgents)-1))}
	day := time.Date(2024, 3, 1, 0, 0, 0, 0, time.UTC).UnixNano()
	g.times = make([]int64, n)
	for i := range g.times {
		g.times[i] = day + rng.Int64N(86400*1000)*1e6
	}
	slices.Sort(g.times)
	return g
}

// batch returns the next n events as one Rows batch.
func (g *httpLogGen) batch(n int, sysTime int64) *Rows {
	b := NewRowsBuilder()
	for i := 0; i < n && g.next < len(g.times); i++ {
		b.Begin()
		b.SetTime(g.times[g.next])
		g.next++
		b.SetString("method", genMethods[g.rng.IntN(len(genMethods))])
		u := g.zipfU.Uint64()
		b.SetString("uri", fmt.Sprintf(genPaths[u%uint64(len(genPaths))], u))
		b.SetInt("status", genStatus[g.rng.IntN(len(genStatus))])
		d := math.Exp(g.rng.NormFloat64()*1.0 + 3.0)
		b.SetFloat("req_duration_ms", math.Round(d*1000)/1000)
		b.SetInt("resp_body_size", int64(math.Exp(g.rng.NormFloat64()*1.5+8)))
		b.SetString("user_agent", genAgents[g.zipfA.Uint64()])
		c := genCities[g.rng.IntN(len(genCities))]
		b.SetString("geo.city", c[0])
		b.SetString("geo.country", c[1])
		b.SetString("server_datacenter", genDCs[g.rng.IntN(len(genDCs))])
		b.SetBool("is_tls", g.rng.IntN(10) != 0)
		b.SetString("id", fmt.Sprintf("%016x%016x", g.rng.Uint64(), g.rng.Uint64()))
		b.End(sysTime)
	}
	return b.Finish(sysTime)
}

// ndjsonSize is the NDJSON size of the batch, to check the generator
// matches the ~370 bytes/event the targets assume.
func ndjsonSize(r *Rows) int {
	n := 0
	for i := 0; i < r.N; i++ {
		n += len(`{"_time":"2024-03-01T12:34:56.789Z"}`) + 1
		for c, k := range r.Keys {
			n += len(k.Name) + 4
			if v := r.Cols[c]; !v.IsNull(i) {
				n += len(fmt.Sprint(v.Value(i)))
				if k.Type == 4 {
					n += 2
				}
			}
		}
	}
	return n
}

// TestBytesOnDiskPerEvent checks the storage target on a realistic HTTP
// log: at most 30 bytes per event once flushed.
func TestBytesOnDiskPerEvent(t *testing.T) {
	const n = 262144
	g := newHTTPLogGen(1, n)
	db := OpenMemory(Options{FlushRows: 1 << 30})
	defer db.Close()
	ds, _ := db.Create("http")
	sys := time.Date(2024, 3, 2, 0, 0, 0, 0, time.UTC).UnixNano()
	inBytes := 0
	for g.next < n {
		r := g.batch(1000, sys)
		if g.next <= 1000 {
			inBytes = ndjsonSize(r) * n / r.N
		}
		sys += 3e7
		if _, err := ds.Append(r); err != nil {
			t.Fatal(err)
		}
	}
	if err := ds.Flush(); err != nil {
		t.Fatal(err)
	}
	info := ds.Info()
	per := float64(info.CompressedBytes) / float64(info.NumEvents)
	t.Logf("%d events, ~%d NDJSON bytes/event, %d bytes on disk = %.2f bytes/event", info.NumEvents, inBytes/n, info.CompressedBytes, per)
	s := ds.Snapshot()
	defer s.Release()
	for _, p := range s.Parts {
		bp := p.(*blockPart)
		for _, c := range bp.idx.cols {
			t.Logf("  %-20s %-8v enc=%d %8d bytes  %.2f B/event", c.key.Name, c.key.Type, c.enc, c.size, float64(c.size)/float64(n))
		}
	}
	if per > 30 {
		t.Errorf("%.2f bytes/event on disk, target is <= 30", per)
	}
}
