package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"time"

	"github.com/aplite/aplite/db"
)

// `aplite ingest` sends files to a server in batches: a 419 MB file in one
// request got 413 (the server's body limit is 100 MB) and README gave no
// way around it. Each batch stays under -batch-bytes; a batch the server
// still finds too large is halved and sent again (a 413 ingests nothing),
// 429 and 503 are retried after Retry-After, and any other refusal stops
// the command with the server's message and how much was sent before it.

const ingestUsage = `usage: aplite ingest [flags] DATASET FILE...

Sends events to a running server in batches under its body limit: NDJSON
(.ndjson, .jsonl), JSON (.json: an array or a sequence of objects) or CSV
(.csv, first line the field names), each optionally .gz or .zst. FILE "-" is
standard input (NDJSON unless -format says otherwise). A missing dataset is
created. Progress goes to stderr on a terminal. Exit 0 when every event was
ingested, 1 when the server refused a batch or some events failed.

examples:
  aplite ingest -token xapt-... logs events.ndjson
  AXIOM_URL=http://127.0.0.1:8080 AXIOM_TOKEN=xapt-... aplite ingest logs big.ndjson.zst
  aplite ingest -url https://aplite.example.com -token xaat-... web access.csv.gz
  zcat old.ndjson.gz | aplite ingest -token xapt-... logs -

flags:
`

// cmdIngest is `aplite ingest`.
func cmdIngest(args []string) int {
	fs := flag.NewFlagSet("ingest", flag.ContinueOnError)
	c := &ingestClient{http: &http.Client{Timeout: 5 * time.Minute}, sleep: time.Sleep, log: os.Stderr}
	// The Axiom clients' variables work too, so README's exports serve both.
	fs.StringVar(&c.url, "url", envOr("APLITE_URL", envOr("AXIOM_URL", "http://127.0.0.1:8080")), "the server's base URL (APLITE_URL, AXIOM_URL)")
	fs.StringVar(&c.token, "token", envOr("APLITE_TOKEN", os.Getenv("AXIOM_TOKEN")), "an API or personal token that may ingest into DATASET (APLITE_TOKEN, AXIOM_TOKEN)")
	fs.StringVar(&c.org, "org", envOr("APLITE_ORG_ID", envOr("AXIOM_ORG_ID", "default")), "organization id, sent as X-Axiom-Org-Id (APLITE_ORG_ID, AXIOM_ORG_ID)")
	batch := fs.String("batch-bytes", "8M", "largest request body; a batch the server still refuses as too large (413) is halved")
	format := fs.String("format", "", "ndjson, json or csv: the format of every FILE (default: from each file's name)")
	fs.StringVar(&c.timestampField, "timestamp-field", "", "the field that holds each event's time (default _time)")
	fs.Usage = func() {
		fmt.Fprint(fs.Output(), ingestUsage)
		fs.PrintDefaults()
	}
	positional, code, ok := parseInterleaved(fs, args)
	if !ok {
		return code
	}
	usageErr := func(format string, a ...any) int {
		fmt.Fprintf(os.Stderr, "aplite ingest: "+format+"\n", a...)
		return 2
	}
	if len(positional) < 2 {
		return usageErr("give a dataset and at least one file (aplite ingest -h)")
	}
	if c.token == "" {
		return usageErr("-token (or APLITE_TOKEN, AXIOM_TOKEN) is required")
	}
	n, err := parseSize(*batch)
	if err != nil || n < 1 {
		return usageErr("-batch-bytes %q: want a size such as 8M", *batch)
	}
	c.limit = int(n)
	c.dataset = positional[0]
	progress := stderrIsTerminal()
	for _, path := range positional[1:] {
		f, err := ingestFormat(path, *format)
		if err != nil {
			return usageErr("%s: %v", path, err)
		}
		if err := c.sendFile(path, f, progress); err != nil {
			fmt.Fprintf(os.Stderr, "aplite ingest: %s: %v\n", path, err)
			c.summary(os.Stderr)
			return 1
		}
	}
	c.summary(os.Stderr)
	if c.failed > 0 {
		return 1
	}
	return 0
}

// ingestFormat is the format of path: the -format flag, else its name.
func ingestFormat(path, flagged string) (string, error) {
	switch flagged {
	case "ndjson", "json", "csv":
		return flagged, nil
	case "":
	default:
		return "", fmt.Errorf("-format %q: want ndjson, json or csv", flagged)
	}
	if path == "-" {
		return "ndjson", nil
	}
	f, _, err := fileFormat(path)
	if err != nil {
		return "", err
	}
	switch f {
	case db.JSON:
		return "json", nil
	case db.CSV:
		return "csv", nil
	}
	return "ndjson", nil
}

// sendFile sends one file (or standard input) in batches.
func (c *ingestClient) sendFile(path, format string, progress bool) error {
	var r io.Reader = os.Stdin
	var cr *countingReader
	if path != "-" {
		_, comp, _ := fileFormat(path)
		rd, closeFile, counter, err := openFile(path, comp)
		if err != nil {
			return err
		}
		defer closeFile()
		r, cr = rd, counter
	}
	if progress {
		status := statusLine{w: os.Stderr, every: 200 * time.Millisecond}
		began := time.Now()
		status.start(func() string {
			read := ""
			if cr != nil {
				read = fmt.Sprintf("%s of %s, ", mib(cr.n.Load()), mib(cr.total))
			}
			return fmt.Sprintf("%s: %s%s events sent, %.1fs", filepath.Base(path), read, thousands(int(c.sent.Load())), time.Since(began).Seconds())
		})
		defer status.done()
	}
	b := newBatcher(r, format, c.limit)
	for {
		bt, err := b.next()
		if errors.Is(err, io.EOF) {
			return nil
		}
		if err != nil {
			return fmt.Errorf("%w (%s events sent before it)", err, thousands(int(c.sent.Load())))
		}
		if err := c.sendBatch(bt); err != nil {
			return fmt.Errorf("%w (%s events sent before it)", err, thousands(int(c.sent.Load())))
		}
	}
}
