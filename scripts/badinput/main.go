// Command badinput sends hostile input to a real aplite server and prints,
// for each case, the status, the message, whether the server still
// answers /health, and the server's peak resident memory during the case.
//
// It builds the binary and runs `aplite serve` as a child process on a
// loopback port, so the memory figures are the server's own (VmHWM of
// /proc/PID/status). The server is restarted on the same data directory
// before each case, so each peak is that case's own. It takes minutes and
// needs Linux, so it is not part of `make test`; from the repository root:
//
//	go run ./scripts/badinput [-serve '-query-timeout 10s'] [-only regexp]
//
// docs/LIMITS.md holds its output.
package main

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"
)

const token = "xapt-badinput000000000000000000001"

func main() {
	serveArgs := flag.String("serve", "-query-timeout 10s", "extra flags for aplite serve")
	only := flag.String("only", "", "run only the cases whose name matches this regexp")
	keep := flag.Bool("keep", false, "keep the temporary directory")
	flag.Parse()
	if err := run(*serveArgs, *only, *keep); err != nil {
		fmt.Fprintln(os.Stderr, "badinput:", err)
		os.Exit(1)
	}
}

// server is the child aplite process.
type server struct {
	bin, dir, addr string
	args           []string
	cmd            *exec.Cmd
	exited         chan struct{}
	log            *bytes.Buffer
}

func (s *server) start() error {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return err
	}
	s.addr = ln.Addr().String()
	ln.Close()
	args := append([]string{"serve", "-addr", s.addr, "-data", filepath.Join(s.dir, "data"), "-token", token}, s.args...)
	s.cmd = exec.Command(s.bin, args...)
	s.log = &bytes.Buffer{}
	s.cmd.Stdout, s.cmd.Stderr = s.log, s.log
	if err := s.cmd.Start(); err != nil {
		return err
	}
	s.exited = make(chan struct{})
	go func() { s.cmd.Wait(); close(s.exited) }()
	for i := 0; i < 200; i++ {
		if s.healthy(time.Second) {
			return nil
		}
		time.Sleep(50 * time.Millisecond)
	}
	return fmt.Errorf("server did not start: %s", s.log)
}

func (s *server) alive() bool {
	select {
	case <-s.exited:
		return false
	default:
		return true
	}
}

func (s *server) stop() {
	if s.alive() {
		s.cmd.Process.Signal(os.Interrupt)
		select {
		case <-s.exited:
		case <-time.After(30 * time.Second):
			s.cmd.Process.Kill()
			<-s.exited
		}
	}
}

func (s *server) healthy(timeout time.Duration) bool {
	c := http.Client{Timeout: timeout}
	r, err := c.Get("http://" + s.addr + "/health")
	if err != nil {
		return false
	}
	io.Copy(io.Discard, r.Body)
	r.Body.Close()
	return r.StatusCode == 200
}

// peak returns VmHWM in bytes.
func (s *server) peak() int64 {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", s.cmd.Process.Pid))
	if err != nil {
		return -1
	}
	for _, line := range strings.Split(string(b), "\n") {
		if rest, ok := strings.CutPrefix(line, "VmHWM:"); ok {
			kb, _ := strconv.ParseInt(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(rest), "kB")), 10, 64)
			return kb << 10
		}
	}
	return -1
}

// outcome is what one request got.
type outcome struct {
	status  int
	message string
	elapsed time.Duration
	err     error
}

// request sends one request with the admin token and the default org.
func (s *server) request(ctx context.Context, method, path string, body io.Reader, size int64, hdr map[string]string) outcome {
	start := time.Now()
	req, err := http.NewRequestWithContext(ctx, method, "http://"+s.addr+path, body)
	if err != nil {
		return outcome{err: err}
	}
	req.ContentLength = size
	req.Header.Set("Authorization", "Bearer "+token)
	req.Header.Set("X-Axiom-Org-Id", "default")
	req.Header.Set("Content-Type", "application/json")
	for k, v := range hdr {
		req.Header.Set(k, v)
	}
	resp, err := client.Do(req)
	if err != nil {
		return outcome{err: err, elapsed: time.Since(start)}
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(io.LimitReader(resp.Body, 1<<20))
	return outcome{status: resp.StatusCode, message: excerpt(b), elapsed: time.Since(start)}
}

// rawPost sends a body while it reads the answer: a server that refuses
// a body by its Content-Length answers and closes before the body is
// sent, which net/http's client reports as a write error instead of the
// answer.
func (s *server) rawPost(path string, body io.Reader, size int64) outcome {
	start := time.Now()
	conn, err := net.Dial("tcp", s.addr)
	if err != nil {
		return outcome{err: err}
	}
	defer conn.Close()
	conn.SetDeadline(time.Now().Add(2 * time.Minute))
	fmt.Fprintf(conn, "POST %s HTTP/1.1\r\nHost: %s\r\nAuthorization: Bearer %s\r\nX-Axiom-Org-Id: default\r\n"+
		"Content-Type: application/x-ndjson\r\nContent-Length: %d\r\n\r\n", path, s.addr, token, size)
	go io.Copy(conn, body) // fails once the server closes; the answer is what counts
	resp, err := http.ReadResponse(bufio.NewReader(conn), nil)
	if err != nil {
		return outcome{err: err, elapsed: time.Since(start)}
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(io.LimitReader(resp.Body, 1<<20))
	return outcome{status: resp.StatusCode, message: excerpt(b), elapsed: time.Since(start)}
}

var client = &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: 4096, DisableCompression: true}}

// excerpt is the error message of an error body, the first failure of an
// ingest status, or the start of any other body.
func excerpt(b []byte) string {
	var v struct {
		Message  *string `json:"message"`
		Ingested *int    `json:"ingested"`
		Failed   int     `json:"failed"`
		Failures []struct {
			Error string `json:"error"`
		} `json:"failures"`
	}
	var tab struct {
		Status struct {
			ElapsedTime  int64 `json:"elapsedTime"`
			RowsExamined int64 `json:"rowsExamined"`
		} `json:"status"`
		Tables []struct {
			Fields []struct {
				Name string `json:"name"`
			} `json:"fields"`
			Columns [][]any `json:"columns"`
		} `json:"tables"`
	}
	msg := string(b)
	if json.Unmarshal(b, &tab) == nil && len(tab.Tables) > 0 {
		t := tab.Tables[0]
		rows := 0
		if len(t.Columns) > 0 {
			rows = len(t.Columns[0])
		}
		msg = fmt.Sprintf("%d rows examined in %d ms; %d rows out", tab.Status.RowsExamined, tab.Status.ElapsedTime/1000, rows)
		if rows > 0 {
			var first []string
			for i, f := range t.Fields {
				v, _ := json.Marshal(t.Columns[i][0])
				if len(v) > 40 {
					v = append(v[:40], "…"...)
				}
				first = append(first, f.Name+"="+string(v))
			}
			msg += ", first: " + strings.Join(first, " ")
		}
	} else if json.Unmarshal(b, &v) == nil {
		switch {
		case v.Message != nil:
			msg = *v.Message
		case v.Ingested != nil:
			msg = fmt.Sprintf("ingested %d, failed %d", *v.Ingested, v.Failed)
			if len(v.Failures) > 0 {
				msg += ": " + v.Failures[0].Error
			}
		}
	}
	msg = strings.Join(strings.Fields(msg), " ")
	if len(msg) > 150 {
		msg = msg[:150] + "…"
	}
	return msg
}

// row is one line of the report.
type row struct {
	name, status, message, up string
	elapsed                   time.Duration
	peak                      int64
}

// testCase sends one kind of bad input and reports its outcome.
type testCase struct {
	name string
	run  func(s *server) (status, message string)
}

func run(serveArgs, only string, keep bool) error {
	dir, err := os.MkdirTemp("", "aplite-badinput-")
	if err != nil {
		return err
	}
	if !keep {
		defer os.RemoveAll(dir)
	}
	bin := filepath.Join(dir, "aplite")
	build := exec.Command("go", "build", "-o", bin, ".")
	build.Stdout, build.Stderr = os.Stderr, os.Stderr
	if err := build.Run(); err != nil {
		return fmt.Errorf("go build (run from the repository root): %w", err)
	}
	s := &server{bin: bin, dir: dir, args: strings.Fields(serveArgs)}
	if err := s.start(); err != nil {
		return err
	}
	defer func() { s.stop() }()
	if err := fixtures(s); err != nil {
		return err
	}
	fmt.Fprintf(os.Stderr, "badinput: server pid %d on %s, flags %q, idle VmHWM %s\n", s.cmd.Process.Pid, s.addr, serveArgs, mb(s.peak()))
	var rows []row
	for _, c := range cases() {
		if only != "" && !regexp.MustCompile(only).MatchString(c.name) {
			continue
		}
		// A fresh server for each case: Go keeps the memory a case freed,
		// so a shared process would report the largest earlier case.
		s.stop()
		if err := s.start(); err != nil {
			return err
		}
		start := time.Now()
		status, msg := c.run(s)
		r := row{name: c.name, status: status, message: msg, elapsed: time.Since(start)}
		r.peak = s.peak()
		up := s.healthy(5 * time.Second)
		if !up {
			// A dying server may still hold its port for a moment.
			select {
			case <-s.exited:
			case <-time.After(10 * time.Second):
			}
		}
		switch {
		case !s.alive():
			r.up = "**no: crashed**"
			fmt.Fprintf(os.Stderr, "badinput: %s killed the server:\n%s\n", c.name, tail(s.log.String(), 3000))
		case up:
			r.up = "yes"
		default:
			r.up = "**no: /health timed out**"
		}
		fmt.Fprintf(os.Stderr, "badinput: %-45s %s %s (%s, %s)\n", c.name, r.status, r.message, r.elapsed.Round(time.Millisecond), mb(r.peak))
		rows = append(rows, r)
	}
	fmt.Println("| Case | Status | Message (excerpt) | Time | Server up after? | Peak RSS |")
	fmt.Println("|---|---|---|---|---|---|")
	for _, r := range rows {
		fmt.Printf("| %s | %s | %s | %s | %s | %s |\n", strings.ReplaceAll(r.name, "|", `\|`), r.status, strings.ReplaceAll(r.message, "|", `\|`),
			r.elapsed.Round(10*time.Millisecond), r.up, mb(r.peak))
	}
	return nil
}

func tail(s string, n int) string {
	if len(s) > n {
		return s[len(s)-n:]
	}
	return s
}

func mb(n int64) string {
	if n < 0 {
		return "?"
	}
	return fmt.Sprintf("%d MB", n>>20)
}

// fixtures creates the datasets the query cases read: "re" holds long
// 'aaaa…b' strings, "j" holds rows that all share one join key.
func fixtures(s *server) error {
	ctx := context.Background()
	for _, ds := range []string{"bad", "re", "j"} {
		o := s.request(ctx, "POST", "/v2/datasets", strings.NewReader(`{"name":"`+ds+`"}`), -1, nil)
		if o.err != nil || o.status != 200 {
			return fmt.Errorf("create dataset %s: %d %s %v", ds, o.status, o.message, o.err)
		}
	}
	var b bytes.Buffer
	// Distinct strings, so that the regex runs on each (a column of one
	// repeated value is matched once).
	for i := 0; i < 1000; i++ {
		fmt.Fprintf(&b, "{\"s\":%q}\n", strings.Repeat("a", 20_000+i)+"b")
	}
	if o := s.request(ctx, "POST", "/v1/datasets/re/ingest", bytes.NewReader(b.Bytes()), int64(b.Len()),
		map[string]string{"Content-Type": "application/x-ndjson"}); o.status != 200 {
		return fmt.Errorf("ingest re: %d %s %v", o.status, o.message, o.err)
	}
	b.Reset()
	for i := 0; i < 100_000; i++ {
		fmt.Fprintf(&b, "{\"k\":1,\"i\":%d}\n", i)
	}
	if o := s.request(ctx, "POST", "/v1/datasets/j/ingest", bytes.NewReader(b.Bytes()), int64(b.Len()),
		map[string]string{"Content-Type": "application/x-ndjson"}); o.status != 200 {
		return fmt.Errorf("ingest j: %d %s %v", o.status, o.message, o.err)
	}
	return nil
}

// ingest posts body to the "bad" dataset.
func ingest(s *server, body []byte, hdr map[string]string) (string, string) {
	return show(s.request(context.Background(), "POST", "/v1/datasets/bad/ingest", bytes.NewReader(body), int64(len(body)), hdr))
}

// apl runs one query.
func apl(s *server, q string) (string, string) {
	body, _ := json.Marshal(map[string]string{"apl": q, "startTime": "2000-01-01T00:00:00Z", "endTime": "2100-01-01T00:00:00Z"})
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	return show(s.request(ctx, "POST", "/v1/datasets/_apl?format=tabular", bytes.NewReader(body), int64(len(body)), nil))
}

func show(o outcome) (string, string) {
	if o.err != nil {
		return "no answer", shortErr(o.err)
	}
	return strconv.Itoa(o.status), o.message
}

func shortErr(err error) string {
	msg := err.Error()
	if len(msg) > 150 {
		msg = msg[:150] + "…"
	}
	return msg
}

// zeros is an endless NDJSON source of one small event per line.
type zeros struct{ n, max int64 }

func (z *zeros) Read(p []byte) (int, error) {
	const line = "{\"msg\":\"padding padding padding padding padding padding padding padding\"}\n"
	if z.n >= z.max {
		return 0, io.EOF
	}
	n := 0
	for n < len(p) && z.n < z.max {
		c := copy(p[n:], line[z.n%int64(len(line)):])
		if rest := z.max - z.n; int64(c) > rest {
			c = int(rest)
		}
		n += c
		z.n += int64(c)
	}
	return n, nil
}

const body200MB = 200 << 20

func cases() []testCase {
	return []testCase{
		{"200 MB body (Content-Length)", func(s *server) (string, string) {
			return show(s.rawPost("/v1/datasets/bad/ingest", &zeros{max: body200MB}, body200MB))
		}},
		{"200 MB body (chunked)", func(s *server) (string, string) {
			return show(s.request(context.Background(), "POST", "/v1/datasets/bad/ingest", io.MultiReader(&zeros{max: body200MB}), -1,
				map[string]string{"Content-Type": "application/x-ndjson"}))
		}},
		{"200 MB after gzip (a 0.2 MB gzip bomb)", func(s *server) (string, string) {
			var b bytes.Buffer
			zw, _ := gzip.NewWriterLevel(&b, gzip.BestCompression)
			io.Copy(zw, &zeros{max: body200MB})
			zw.Close()
			return ingest(s, b.Bytes(), map[string]string{"Content-Type": "application/x-ndjson", "Content-Encoding": "gzip"})
		}},
		{"JSON arrays nested 100,000 deep", func(s *server) (string, string) {
			d := 100_000
			return ingest(s, []byte(`[{"a":`+strings.Repeat("[", d)+strings.Repeat("]", d)+`}]`), nil)
		}},
		{"JSON objects nested 100,000 deep", func(s *server) (string, string) {
			d := 100_000
			return ingest(s, []byte(`[{"a":`+strings.Repeat(`{"a":`, d)+"1"+strings.Repeat("}", d)+`}]`), nil)
		}},
		{"JSON nested 100,000 deep at the top level", func(s *server) (string, string) {
			d := 100_000
			return ingest(s, []byte(strings.Repeat("[", d)+strings.Repeat("]", d)), nil)
		}},
		{"JSON nested 100,000 deep in a query request body", func(s *server) (string, string) {
			d := 100_000
			body := []byte(`{"apl":"print 1","x":` + strings.Repeat("[", d) + strings.Repeat("]", d) + `}`)
			return show(s.request(context.Background(), "POST", "/v1/datasets/_apl", bytes.NewReader(body), int64(len(body)), nil))
		}},
		{"JSON nested 100,000 deep in a dashboard", func(s *server) (string, string) {
			d := 100_000
			body := []byte(`{"dashboard":{"name":"d","x":` + strings.Repeat(`{"a":`, d) + "1" + strings.Repeat("}", d) + `}}`)
			return show(s.request(context.Background(), "POST", "/v2/dashboards", bytes.NewReader(body), int64(len(body)), nil))
		}},
		{"OTLP/JSON log attribute nested 100,000 deep", func(s *server) (string, string) {
			d := 100_000
			v := strings.Repeat(`{"kvlistValue":{"values":[{"key":"k","value":`, d) + `{"intValue":"1"}` + strings.Repeat("}]}}", d)
			body := []byte(`{"resourceLogs":[{"scopeLogs":[{"logRecords":[{"body":{"stringValue":"x"},"attributes":[{"key":"a","value":` + v + `}]}]}]}]}`)
			return show(s.request(context.Background(), "POST", "/v1/logs", bytes.NewReader(body), int64(len(body)),
				map[string]string{"X-Axiom-Dataset": "bad"}))
		}},
		{"10,000 distinct fields in one event", func(s *server) (string, string) {
			var b strings.Builder
			b.WriteString("[{")
			for i := 0; i < 10_000; i++ {
				if i > 0 {
					b.WriteByte(',')
				}
				fmt.Fprintf(&b, `"field_%05d":%d`, i, i)
			}
			b.WriteString("}]")
			return ingest(s, []byte(b.String()), nil)
		}},
		{"field name of 1 MB", func(s *server) (string, string) {
			return ingest(s, []byte(`[{"`+strings.Repeat("n", 1<<20)+`":1}]`), nil)
		}},
		{"invalid UTF-8 in a value", func(s *server) (string, string) {
			return ingest(s, []byte("[{\"msg\":\"ab\xff\xfecd\"}]"), nil)
		}},
		{"invalid UTF-8 in a field name", func(s *server) (string, string) {
			return ingest(s, []byte("[{\"m\xffsg\":\"x\"}]"), nil)
		}},
		{"invalid UTF-8 in an APL query", func(s *server) (string, string) {
			return apl(s, "['bad'] | where msg == \"\xff\xfe\"")
		}},
		{"1 MB APL query (a long where)", func(s *server) (string, string) {
			var b strings.Builder
			b.WriteString("['j'] | where i == -1")
			for i := 1; b.Len() < 1<<20; i++ {
				fmt.Fprintf(&b, " or i == -%d", i)
			}
			return apl(s, b.String())
		}},
		{"1 MB APL query with a syntax error at its end", func(s *server) (string, string) {
			return apl(s, "['bad'] | where msg == \""+strings.Repeat("x", 1<<20)+"\" | extend x = ")
		}},
		{"100,000 nested parentheses", func(s *server) (string, string) {
			d := 100_000
			return apl(s, "['bad'] | where "+strings.Repeat("(", d)+"a"+strings.Repeat(")", d)+" == 1")
		}},
		{"100,000 unary minus", func(s *server) (string, string) {
			return apl(s, "['bad'] | extend x = "+strings.Repeat("-", 100_000)+"1")
		}},
		{"100,000 chained `not()`", func(s *server) (string, string) {
			d := 100_000
			return apl(s, "['bad'] | where "+strings.Repeat("not(", d)+"true"+strings.Repeat(")", d))
		}},
		{"6 MB chain of `+1` (`print x = 1+1+…`, 3,000,000 operators)", func(s *server) (string, string) {
			return apl(s, "print x = 1"+strings.Repeat("+1", 3_000_000))
		}},
		{"10 MB `or` chain (700,000 terms)", func(s *server) (string, string) {
			var b strings.Builder
			b.WriteString("['j'] | where i == 0")
			for i := 1; i < 700_000; i++ {
				fmt.Fprintf(&b, " or i == %d", i)
			}
			return apl(s, b.String())
		}},
		{"5,000-term `or` (60 KB)", func(s *server) (string, string) {
			return apl(s, "['j'] | where i == 0"+strings.Repeat(" or i == 1", 4_999))
		}},
		{"20,000 `| take 1` stages", func(s *server) (string, string) {
			return apl(s, "['j']"+strings.Repeat(" | take 1", 20_000))
		}},
		{"`let t = t | take 1; t`", func(s *server) (string, string) {
			return apl(s, "let t = t | take 1; t")
		}},
		{"30 lets, each the union of the one before twice (2^30 copies)", func(s *server) (string, string) {
			var b strings.Builder
			b.WriteString("let t0 = ['j'];")
			for i := 1; i <= 30; i++ {
				fmt.Fprintf(&b, " let t%d = union t%d, t%d;", i, i-1, i-1)
			}
			return apl(s, b.String()+" t30 | count")
		}},
		{"`matches regex \"(a+)+$\"` over 1,000 × 20 KB 'aaaa…b'", func(s *server) (string, string) {
			return apl(s, `['re'] | where s matches regex "(a+)+$" | count`)
		}},
		{"`matches regex \"(a+)+$\"` over the same strings doubled (40 KB)", func(s *server) (string, string) {
			return apl(s, `['re'] | extend t = strcat(s, s) | where t matches regex "(a+)+$" | count`)
		}},
		{"the same, without the regex (the cost of strcat)", func(s *server) (string, string) {
			return apl(s, `['re'] | extend t = strcat(s, s) | where strlen(t) < 0 | count`)
		}},
		{"`matches regex` with a 1 MB pattern", func(s *server) (string, string) {
			return apl(s, `['re'] | where s matches regex "`+strings.Repeat("(a|b)", 200_000)+`" | count`)
		}},
		{"`range x from 1 to 1e12 step 1`", func(s *server) (string, string) {
			return apl(s, "range x from 1 to 1e12 step 1")
		}},
		{"`print r = range(1, 1e12, 1) | mv-expand r`", func(s *server) (string, string) {
			return apl(s, "print r = range(1, 1000000000000, 1) | mv-expand r | count")
		}},
		{"`range()` of 1,000,000 values on each of 100,000 rows, expanded", func(s *server) (string, string) {
			return apl(s, "['j'] | extend r = range(1, 1000000) | mv-expand r | count")
		}},
		{"`range()` of 1,000,000 values on each of 100,000 rows, kept", func(s *server) (string, string) {
			return apl(s, "['j'] | extend r = range(1, 1000000) | summarize max(array_length(r))")
		}},
		{"`strrep(\"abc\", 1e9)`", func(s *server) (string, string) {
			return apl(s, `print s = strrep("abc", 1000000000) | extend n = strlen(s) | project n`)
		}},
		{"`strrep` nested four deep (1 TB)", func(s *server) (string, string) {
			return apl(s, `print n = strlen(strrep(strrep(strrep(strrep("x", 1024), 1024), 1024), 1024))`)
		}},
		{"`strrep` of 20 MB on each of 1,000 rows (20 GB)", func(s *server) (string, string) {
			return apl(s, `['re'] | extend t = strrep(s, 1024) | summarize max(strlen(t))`)
		}},
		{"`strrep` of 1 MB on each of 100,000 rows", func(s *server) (string, string) {
			return apl(s, `['j'] | extend s = strrep("x", 1000000) | summarize max(strlen(s))`)
		}},
		{"invalid UTF-8 read back", func(s *server) (string, string) {
			return apl(s, `['bad'] | where isnotempty(msg) | project msg | take 1`)
		}},
		{"`make-series` of 3e12 bins (1 ms step over 100 years)", func(s *server) (string, string) {
			return apl(s, "['j'] | make-series count() on _time from datetime(2000-01-01) to datetime(2100-01-01) step 1ms")
		}},
		{"`summarize` by 1,000 distinct 20 KB strings", func(s *server) (string, string) {
			return apl(s, "['re'] | extend k = strcat(s, tostring(rand())) | summarize count() by k | count")
		}},
		{"cross join, 100,000 × 100,000 rows on one key", func(s *server) (string, string) {
			return apl(s, "['j'] | join kind=inner (['j']) on k | count")
		}},
		{"2,000 concurrent slow queries", concurrent},
	}
}

// concurrent sends 2,000 slow queries at once and, meanwhile, /health.
func concurrent(s *server) (string, string) {
	const n = 2000
	q, _ := json.Marshal(map[string]string{"apl": `['re'] | where s matches regex "(a+)+$" | summarize count() by bin_auto(_time)`})
	var wg sync.WaitGroup
	var mu sync.Mutex
	byStatus := map[string]int{}
	var slowest time.Duration
	msgs := map[string]string{}
	start := time.Now()
	for i := 0; i < n; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
			defer cancel()
			o := s.request(ctx, "POST", "/v1/datasets/_apl?format=tabular&nocache=true", bytes.NewReader(q), int64(len(q)), nil)
			st, msg := show(o)
			mu.Lock()
			byStatus[st]++
			if _, ok := msgs[st]; !ok && st != "200" {
				msgs[st] = msg
			}
			slowest = max(slowest, o.elapsed)
			mu.Unlock()
		}()
	}
	// /health while the storm runs: the server must keep answering.
	time.Sleep(2 * time.Second)
	h := time.Now()
	up := s.healthy(30 * time.Second)
	healthTook := time.Since(h)
	wg.Wait()
	keys := make([]string, 0, len(byStatus))
	for k := range byStatus {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	var parts, detail []string
	for _, k := range keys {
		parts = append(parts, fmt.Sprintf("%d× %s", byStatus[k], k))
		if m := msgs[k]; m != "" {
			detail = append(detail, k+": "+m)
		}
	}
	status := strings.Join(parts, ", ")
	msg := fmt.Sprintf("all done in %s (slowest %s); /health during the storm: %v in %s. %s",
		time.Since(start).Round(time.Millisecond), slowest.Round(time.Millisecond), up, healthTook.Round(time.Millisecond), strings.Join(detail, "; "))
	if !up {
		return status, msg + " " + errors.New("health failed").Error()
	}
	return status, msg
}
