package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"sync/atomic"
	"time"
)

// ingestClient sends batches to one dataset of a server and adds up what
// the server answered.
type ingestClient struct {
	url, token, org, dataset string
	timestampField           string
	limit                    int // bytes per request; lowered when the server answers 413
	http                     *http.Client
	sleep                    func(time.Duration) // waits out Retry-After; a test's clock
	log                      io.Writer
	created                  bool

	sent             atomic.Int64 // events the server acknowledged
	failed           int
	firstFailures    []string
	bytesSent        int64
	requests, waited int
}

// maxRetries bounds how often one batch is retried after 429 or 503.
const maxRetries = 10

// ingestAnswer is the part of the server's ingest result the command reads.
type ingestAnswer struct {
	Ingested int `json:"ingested"`
	Failed   int `json:"failed"`
	Failures []struct {
		Error string `json:"error"`
	} `json:"failures"`
}

// sendBatch sends b; a batch the server finds too large is halved and
// each half sent (a 413 ingested nothing), down to one event, which then
// fails naming its place in the file.
func (c *ingestClient) sendBatch(b *batch) error {
	status, body, err := c.post(b)
	if err != nil {
		return err
	}
	switch {
	case status == http.StatusOK:
		var a ingestAnswer
		if err := json.Unmarshal(body, &a); err != nil {
			return fmt.Errorf("the server's answer is not an ingest result: %v", err)
		}
		c.sent.Add(int64(a.Ingested))
		c.failed += a.Failed
		for _, f := range a.Failures {
			if len(c.firstFailures) < 3 {
				c.firstFailures = append(c.firstFailures, f.Error)
			}
		}
		return nil
	case status == http.StatusRequestEntityTooLarge && len(b.events) > 1:
		first, second := b.split()
		c.limit = max(1, min(c.limit, first.size()))
		if err := c.sendBatch(first); err != nil {
			return err
		}
		return c.sendBatch(second)
	case status == http.StatusRequestEntityTooLarge:
		return fmt.Errorf("the event at %s alone (%d bytes) exceeds the server's body limit: %s", b.where(0), b.size(), serverMessage(body))
	}
	return fmt.Errorf("the server answered %d for the batch from %s: %s", status, b.where(0), serverMessage(body))
}

// post sends the batch, creating the dataset when the server says it does
// not exist and retrying 429 and 503 after Retry-After. It returns the
// final status and body.
func (c *ingestClient) post(b *batch) (int, []byte, error) {
	body := b.body()
	wait := time.Second
	for attempt := 0; ; attempt++ {
		status, answer, hdr, err := c.do("POST", c.ingestURL(), b.contentType, body)
		var ns *notSentError
		switch {
		case errors.As(err, &ns) && len(b.events) > 1:
			// A server that refuses a body over its limit may close the
			// connection while it is sent: treat it as the 413 it is
			// likely to be (nothing was ingested, the body was not whole).
			return http.StatusRequestEntityTooLarge, []byte(err.Error()), nil
		case errors.As(err, &ns) && attempt < maxRetries:
			c.sleep(wait)
			wait = min(2*wait, 30*time.Second)
			continue
		case err != nil:
			return 0, nil, err
		}
		if status == http.StatusNotFound && !c.created && strings.Contains(serverMessage(answer), "not found") {
			if err := c.create(); err != nil {
				return 0, nil, err
			}
			continue
		}
		if (status != http.StatusTooManyRequests && status != http.StatusServiceUnavailable) || attempt == maxRetries {
			if status == http.StatusOK {
				c.requests++
				c.bytesSent += int64(len(body))
			}
			return status, answer, nil
		}
		d := retryAfter(hdr.Get("Retry-After"), wait)
		wait = min(2*wait, 30*time.Second)
		c.waited++
		c.sleep(d)
	}
}

// create makes the dataset, once; a dataset that now exists is fine.
func (c *ingestClient) create() error {
	c.created = true
	req, _ := json.Marshal(map[string]string{"name": c.dataset})
	status, answer, _, err := c.do("POST", strings.TrimRight(c.url, "/")+"/v2/datasets", "application/json", req)
	if err != nil {
		return err
	}
	if status != http.StatusOK && status != http.StatusCreated && status != http.StatusConflict {
		return fmt.Errorf("creating dataset %q: the server answered %d: %s", c.dataset, status, serverMessage(answer))
	}
	if status != http.StatusConflict {
		fmt.Fprintf(c.log, "aplite ingest: created dataset %q\n", c.dataset)
	}
	return nil
}

func (c *ingestClient) ingestURL() string {
	u := strings.TrimRight(c.url, "/") + "/v1/datasets/" + url.PathEscape(c.dataset) + "/ingest"
	if c.timestampField != "" {
		u += "?timestamp-field=" + url.QueryEscape(c.timestampField)
	}
	return u
}

// do makes one request and reads the whole answer.
func (c *ingestClient) do(method, u, ctype string, body []byte) (int, []byte, http.Header, error) {
	sent := &sentReader{r: bytes.NewReader(body)}
	req, err := http.NewRequest(method, u, sent)
	if err != nil {
		return 0, nil, nil, err
	}
	req.ContentLength = int64(len(body))
	req.GetBody = nil
	req.Header.Set("Authorization", "Bearer "+c.token)
	req.Header.Set("Content-Type", ctype)
	if len(body) > 64<<10 {
		// The server then refuses a body over its limit (413) before
		// it is sent, instead of resetting the connection halfway; and
		// a connection is not reused after such a refusal, which the
		// server may close without saying so (a POST is not retried).
		req.Header.Set("Expect", "100-continue")
		req.Close = true
	}
	if c.org != "" {
		req.Header.Set("X-Axiom-Org-Id", c.org)
	}
	resp, err := c.http.Do(req)
	if err != nil {
		var op *net.OpError
		if sent.n < len(body) || errors.As(err, &op) && (op.Op == "write" || op.Op == "readfrom") {
			return 0, nil, nil, &notSentError{err}
		}
		return 0, nil, nil, err
	}
	defer resp.Body.Close()
	answer, err := io.ReadAll(io.LimitReader(resp.Body, 1<<20))
	if err != nil {
		return 0, nil, nil, fmt.Errorf("reading the server's answer: %w", err)
	}
	return resp.StatusCode, answer, resp.Header, nil
}

// sentReader counts the bytes of a request body the transport took.
type sentReader struct {
	r io.Reader
	n int
}

func (s *sentReader) Read(p []byte) (int, error) {
	n, err := s.r.Read(p)
	s.n += n
	return n, err
}

// notSentError is a request that failed before its whole body was handed
// to the connection, or whose writing failed: the server did not get the
// whole body, so it cannot have ingested it.
type notSentError struct{ err error }

func (e *notSentError) Error() string { return "the batch was not sent whole: " + e.err.Error() }
func (e *notSentError) Unwrap() error { return e.err }

// retryAfter reads a Retry-After header (seconds or an HTTP date), else
// returns def.
func retryAfter(h string, def time.Duration) time.Duration {
	if n, err := strconv.Atoi(strings.TrimSpace(h)); err == nil && n >= 0 {
		return time.Duration(n) * time.Second
	}
	if t, err := http.ParseTime(h); err == nil {
		return max(0, time.Until(t))
	}
	return def
}

// serverMessage is the message of an Axiom error body, else the body.
func serverMessage(body []byte) string {
	var e struct {
		Message string `json:"message"`
	}
	if json.Unmarshal(body, &e) == nil && e.Message != "" {
		return e.Message
	}
	s := strings.TrimSpace(string(body))
	if len(s) > 300 {
		s = s[:300] + "…"
	}
	if s == "" {
		return "(no message)"
	}
	return s
}

// summary says what was sent, on stderr.
func (c *ingestClient) summary(w io.Writer) {
	fmt.Fprintf(w, "aplite ingest: %s events ingested into %q in %s requests (%s)", thousands(int(c.sent.Load())), c.dataset, thousands(c.requests), sizeText(c.bytesSent))
	if c.waited > 0 {
		fmt.Fprintf(w, ", %d waits for a busy server", c.waited)
	}
	if c.failed > 0 {
		fmt.Fprintf(w, "; %s events failed, first: %s", thousands(c.failed), strings.Join(c.firstFailures, "; "))
	}
	fmt.Fprintln(w)
}

// sizeText is n bytes for people: 812 B, 20.4 KiB, 419.0 MiB.
func sizeText(n int64) string {
	switch {
	case n < 1<<10:
		return fmt.Sprintf("%d B", n)
	case n < 1<<20:
		return fmt.Sprintf("%.1f KiB", float64(n)/(1<<10))
	}
	return fmt.Sprintf("%.1f MiB", float64(n)/(1<<20))
}
