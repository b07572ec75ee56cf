package bench

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/aplite/aplite/internal/seaweedtest"
	"github.com/aplite/aplite/objstore"
	"github.com/aplite/aplite/server"
	"github.com/valyala/fasthttp"
)

// BenchmarkIngestHTTPObjects is the ingest a client sees: 4 clients post
// 4 MB NDJSON bodies to a real server over loopback, with blocks on local
// disk (local) and, with APLITE_WEED, uploaded to a SeaweedFS bucket as
// `serve -storage` uploads them (bucket); modes alternate over the same
// bodies. The window ends when the server has shut down, so every event
// is in a block (in the bucket, for bucket mode), not only in the WAL.
func BenchmarkIngestHTTPObjects(b *testing.B) {
	modes := []string{"local"}
	var weed seaweedtest.Server
	if os.Getenv("APLITE_WEED") != "" {
		weed = seaweedtest.StartServer(b)
		modes = append(modes, "bucket")
	}
	const conc, posts = 4, 250
	bodies := bodiesOf(events4MB, posts)
	rates := map[string][]float64{}
	b.ResetTimer()
	for i := range len(modes) * b.N {
		mode := modes[i%len(modes)]
		b.StopTimer()
		dir := b.TempDir()
		cfg := server.Config{DataDir: filepath.Join(dir, "data")}
		if mode == "bucket" {
			s3cfg, _ := objstore.ParseURL("s3://" + seaweedtest.Bucket + "/http-" + filepath.Base(dir))
			s3cfg.Endpoint, s3cfg.AccessKey, s3cfg.SecretKey, s3cfg.Region = weed.Endpoint, "bench", "bench", "us-east-1"
			bucket, err := objstore.NewS3(context.Background(), s3cfg)
			if err != nil {
				b.Fatal(err)
			}
			objs := cachedLikeServe(b, dir, bucket, bucket.Stats())
			cfg.Objects, cfg.MetaRole, cfg.StoreOptions.Objects = objs, server.MetaPublish, objs
		}
		h := startServerWith(b, cfg, conc)
		h.createDataset(b, "ingest")
		reqs := make(chan *fasthttp.Request, conc)
		for range conc {
			reqs <- fasthttp.AcquireRequest()
		}
		b.StartTimer()
		began := time.Now()
		err := parallel(posts, conc, func(i int) error {
			req, resp := <-reqs, fasthttp.AcquireResponse()
			defer func() { reqs <- req; fasthttp.ReleaseResponse(resp) }()
			h.prepare(req, "POST", "/v1/datasets/ingest/ingest", "application/x-ndjson", bodies[i%len(bodies)])
			if err := h.client.Do(req, resp); err != nil {
				return err
			}
			return checkIngest(resp.StatusCode(), resp.Body(), events4MB)
		})
		if err != nil {
			b.Fatal(err)
		}
		h.stop(b) // flushes and uploads what the WAL still holds
		took := time.Since(began)
		b.StopTimer()
		rates[mode] = append(rates[mode], float64(posts*events4MB)/took.Seconds())
		b.Logf("%s: %.0f events/s", mode, rates[mode][len(rates[mode])-1])
	}
	b.SetBytes(avgLen(bodies) * posts * int64(len(modes)))
	b.ReportAllocs()
	for _, mode := range modes {
		b.ReportMetric(slices.Max(rates[mode]), mode+"-events/s")
		if mode != "local" {
			b.ReportMetric(slices.Max(rates[mode])/slices.Max(rates["local"]), mode+"/local-rate")
		}
	}
}
