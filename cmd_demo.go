package main

import (
	"bytes"
	"context"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"os"
	"os/signal"
	"syscall"
	"time"

	"github.com/aplite/aplite/bench/gen"
	"github.com/aplite/aplite/server"
)

// demoDataset is the dataset `aplite demo` fills.
const demoDataset = "logs"

// demoBatch is how many events go in one ingest request (about 14 MB).
const demoBatch = 20_000

// demoSpan is how far back the demo's events go: they end now, so the
// console's default time ranges show them.
const demoSpan = 2 * time.Hour

// cmdDemo is `aplite demo`: a server with a dataset of realistic HTTP
// access-log events (bench/gen's, the benchmarks' data) spread over the
// last two hours, so a new user has something to query at once; it prints
// the URL, the token and example queries, and serves until SIGINT or
// SIGTERM.
func cmdDemo(args []string) int {
	fs := flag.NewFlagSet("demo", flag.ContinueOnError)
	addr := fs.String("addr", "127.0.0.1:8080", "listen address")
	data := fs.String("data", "", "data directory (default: a temporary one, removed on exit)")
	events := fs.Int("events", 100_000, "events to generate")
	seed := fs.Int64("seed", time.Now().UnixNano(), "seed of the generator (the same seed gives the same events, shifted to now)")
	outFile := fs.String("o", "", "write the events to this NDJSON file (- for standard output) and exit, serving nothing")
	fs.Usage = func() {
		fmt.Fprintf(fs.Output(), "usage: aplite demo [-addr HOST:PORT] [-data DIR] [-events N]\n"+
			"       aplite demo -o FILE [-events N]\n\n"+
			"Serves the API and the console with a dataset %q of realistic HTTP access logs\n"+
			"over the last two hours, and prints the token and example queries; with -o,\n"+
			"writes such events to FILE as NDJSON instead.\n\n", demoDataset)
		fs.PrintDefaults()
	}
	if err := fs.Parse(args); err != nil {
		if err == flag.ErrHelp {
			return 0
		}
		return 2
	}
	if *events < 1 || fs.NArg() > 0 {
		fs.Usage()
		return 2
	}
	if *outFile != "" {
		if err := demoFile(*outFile, *seed, *events, time.Now()); err != nil {
			fmt.Fprintln(os.Stderr, "aplite demo:", err)
			return 1
		}
		return 0
	}
	dir := *data
	if dir == "" {
		tmp, err := os.MkdirTemp("", "aplite-demo-")
		if err != nil {
			fmt.Fprintln(os.Stderr, "aplite demo:", err)
			return 1
		}
		defer os.RemoveAll(tmp)
		dir = tmp
	}
	if err := checkDataDir(dir); err != nil {
		fmt.Fprintln(os.Stderr, "aplite demo:", err)
		return 1
	}
	ln, err := listenFirst(*addr, dir)
	if err != nil {
		fmt.Fprintln(os.Stderr, "aplite demo:", err)
		return 1
	}
	lg := slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelWarn}))
	srv, err := server.New(server.Config{Addr: *addr, DataDir: dir, Logger: lg, Log: server.LogWriter(lg)})
	if err != nil {
		ln.Close()
		fmt.Fprintln(os.Stderr, "aplite demo:", err)
		return 1
	}
	sig := make(chan os.Signal, 1)
	signal.Notify(sig, os.Interrupt, syscall.SIGTERM)
	go srv.Serve(ln)
	url := "http://" + ln.Addr().String()
	if err := demoIngest(url, srv.Token(), srv.OrgID(), *seed, *events, time.Now()); err != nil {
		fmt.Fprintln(os.Stderr, "aplite demo:", err)
		srv.Close()
		return 1
	}
	demoBanner(os.Stdout, url, srv.Token(), srv.OrgID(), *events, *data == "", dir)
	<-sig
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if err := srv.Shutdown(ctx); err != nil {
		fmt.Fprintln(os.Stderr, "aplite demo: shutdown:", err)
		return 1
	}
	return 0
}

// demoIngest creates the dataset and sends n generated events through
// the ingest API, as a shipper would, in batches under the body limit.
func demoIngest(url, token, org string, seed int64, n int, now time.Time) error {
	post := func(path, ctype string, body []byte) error {
		req, err := http.NewRequest("POST", url+path, bytes.NewReader(body))
		if err != nil {
			return err
		}
		req.Header.Set("Authorization", "Bearer "+token)
		req.Header.Set("X-Axiom-Org-Id", org)
		req.Header.Set("Content-Type", ctype)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			return err
		}
		defer resp.Body.Close()
		if resp.StatusCode != http.StatusOK {
			b, _ := io.ReadAll(io.LimitReader(resp.Body, 1024))
			return fmt.Errorf("POST %s: %d %s", path, resp.StatusCode, b)
		}
		return nil
	}
	if err := post("/v2/datasets", "application/json", []byte(`{"name":"`+demoDataset+`","description":"aplite demo: generated HTTP access logs"}`)); err != nil {
		return err
	}
	g := gen.NewWith(seed, gen.Options{Shape: gen.Real, EventsPerDay: n})
	for sent := 0; sent < n; sent += demoBatch {
		k := min(demoBatch, n-sent)
		body := shiftToNow(g.AppendNDJSON(nil, k), now)
		if err := post("/v1/datasets/"+demoDataset+"/ingest", "application/x-ndjson", body); err != nil {
			return err
		}
	}
	return nil
}

// demoFile writes n events ending now to path as NDJSON.
func demoFile(path string, seed int64, n int, now time.Time) error {
	w := os.Stdout
	if path != "-" {
		f, err := os.Create(path)
		if err != nil {
			return err
		}
		defer f.Close()
		w = f
	}
	g := gen.NewWith(seed, gen.Options{Shape: gen.Real, EventsPerDay: n})
	for sent := 0; sent < n; sent += demoBatch {
		if _, err := w.Write(shiftToNow(g.AppendNDJSON(nil, min(demoBatch, n-sent)), now)); err != nil {
			return err
		}
	}
	return w.Close()
}

// shiftToNow maps the generator's simulated day (gen.Day0 on, every line
// starting with its _time) onto the demoSpan before now, keeping the
// day's traffic curve.
func shiftToNow(ndjson []byte, now time.Time) []byte {
	prefix := []byte(`{"_time":"`)
	start := now.Add(-demoSpan)
	scale := float64(demoSpan) / float64(24*time.Hour)
	out := make([]byte, 0, len(ndjson))
	for len(ndjson) > 0 {
		line := ndjson
		if i := bytes.IndexByte(ndjson, '\n'); i >= 0 {
			line, ndjson = ndjson[:i+1], ndjson[i+1:]
		} else {
			ndjson = nil
		}
		end := bytes.IndexByte(line[min(len(prefix), len(line)):], '"')
		if !bytes.HasPrefix(line, prefix) || end < 0 {
			out = append(out, line...)
			continue
		}
		ts := line[len(prefix) : len(prefix)+end]
		t, err := time.Parse(time.RFC3339Nano, string(ts))
		if err != nil {
			out = append(out, line...)
			continue
		}
		shifted := start.Add(time.Duration(float64(t.Sub(gen.Day0)) * scale)).UTC()
		out = append(out, prefix...)
		out = shifted.AppendFormat(out, time.RFC3339Nano)
		out = append(out, line[len(prefix)+end:]...)
	}
	return out
}

// demoBanner tells the user where the demo is and what to try.
func demoBanner(w io.Writer, url, token, org string, n int, temporary bool, dir string) {
	where := dir
	if temporary {
		where += ", removed on exit"
	}
	fmt.Fprintf(w, `aplite demo: %d HTTP access-log events of the last 2 hours in dataset %q (data in %s)

  console  %s/   (paste the token)
  token    %s
  org      %s

Query it:

  export AXIOM_URL=%s AXIOM_TOKEN=%s AXIOM_ORG_ID=%s
  curl -s -H "Authorization: Bearer $AXIOM_TOKEN" -H "X-Axiom-Org-Id: $AXIOM_ORG_ID" \
       -X POST "$AXIOM_URL/v1/datasets/_apl?format=tabular" \
       -d '{"apl":"%s | summarize count() by bin(_time, 5m)"}'

More to try, in the console or the same curl:

  %s | where status >= 500 | summarize count() by uri | top 5 by count_
  %s | summarize percentile(req_duration_ms, 95) by server_datacenter, method

Ctrl-C stops the demo.
`, n, demoDataset, where, url, token, org, url, token, org, demoDataset, demoDataset, demoDataset)
}
