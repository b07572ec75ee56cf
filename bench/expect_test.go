package bench

import (
	"bytes"
	"cmp"
	"fmt"
	"math"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/aplite/aplite/bench/gen"
	"github.com/aplite/aplite/core/store"
)

// expected holds the true answers of the seven queries, computed straight
// from the generated NDJSON bytes so a broken engine cannot look fast.
type expected struct {
	n        int
	byStatus map[int64]int
	durSum   map[string]float64 // by method
	durCnt   map[string]int
	byMinute map[int64]int // minute start, ns
	byURI    map[string]int
	durByDC  map[string][]float64
	api      int       // uri contains "api", case-insensitively
	durErr   []float64 // req_duration_ms of status >= 500
	p95      map[string]float64
	// rare and common count the messages that have gen.RareWord and
	// gen.CommonWord as a term (`has`).
	rare, common int
	// byDC and durByGroup answer gapQueries' countif and multi-agg.
	byDC       map[string]dcStats
	durByGroup map[[2]string]*durStats
}

func newExpected() *expected {
	return &expected{byStatus: map[int64]int{}, durSum: map[string]float64{}, durCnt: map[string]int{},
		byMinute: map[int64]int{}, byURI: map[string]int{}, durByDC: map[string][]float64{},
		byDC: map[string]dcStats{}, durByGroup: map[[2]string]*durStats{}}
}

// addNDJSON accounts for every line of body. It reads the generator's
// fixed layout with byte searches, independent of the ingest decoder.
func (e *expected) addNDJSON(body []byte) error {
	for len(body) > 0 {
		i := bytes.IndexByte(body, '\n')
		if i < 0 {
			i = len(body)
		}
		if err := e.addLine(body[:i]); err != nil {
			return fmt.Errorf("%v in %s", err, body[:i])
		}
		body = body[min(i+1, len(body)):]
	}
	return nil
}

func (e *expected) addLine(l []byte) error {
	ts, err := time.Parse(time.RFC3339Nano, string(jsonField(l, "_time")))
	if err != nil {
		return err
	}
	status, err := strconv.ParseInt(string(jsonField(l, "status")), 10, 64)
	if err != nil {
		return err
	}
	dur, err := strconv.ParseFloat(string(jsonField(l, "req_duration_ms")), 64)
	if err != nil {
		return err
	}
	method, uri, dc := string(jsonField(l, "method")), string(jsonField(l, "uri")), string(jsonField(l, "server_datacenter"))
	if method == "" || uri == "" || dc == "" {
		return fmt.Errorf("missing method, uri or server_datacenter")
	}
	e.n++
	e.byStatus[status]++
	e.durSum[method] += dur
	e.durCnt[method]++
	e.byMinute[ts.UnixNano()/int64(time.Minute)*int64(time.Minute)]++
	e.byURI[uri]++
	e.durByDC[dc] = append(e.durByDC[dc], dur)
	if status >= 500 {
		e.durErr = append(e.durErr, dur)
	}
	e.addGap(method, dc, status, string(jsonField(l, "is_tls")) == "false", dur)
	if strings.Contains(strings.ToLower(uri), "api") {
		e.api++
	}
	if msg := jsonField(l, "message"); msg != nil {
		terms := store.Terms(string(msg))
		if slices.Contains(terms, gen.RareWord) {
			e.rare++
		}
		if slices.Contains(terms, gen.CommonWord) {
			e.common++
		}
	}
	return nil
}

// jsonField returns the raw value of a top-level key of one generated
// line: the text between the quotes of a string, the literal otherwise.
// The generator writes no escapes in these fields.
func jsonField(l []byte, key string) []byte {
	k := bytes.Index(l, []byte(`"`+key+`":`))
	if k < 0 {
		return nil
	}
	v := l[k+len(key)+3:]
	if len(v) > 0 && v[0] == '"' {
		end := bytes.IndexByte(v[1:], '"')
		if end < 0 {
			return nil
		}
		return v[1 : 1+end]
	}
	end := bytes.IndexAny(v, ",}")
	if end < 0 {
		return nil
	}
	return v[:end]
}

// table is a query answer reduced to what the checks compare: column names
// and rows of JSON-like values (numbers as float64, times as strings).
type table struct {
	names []string
	rows  [][]any
}

func (t *table) col(name string) int { return slices.Index(t.names, name) }

// check returns nil when t is the true answer of query q.
func (e *expected) check(q benchQuery, t *table) error {
	switch q.id {
	case "sort-take", "countif", "multi-agg":
		return e.checkGap(q, t)
	case "agg2", "dcount-id":
		return e.checkAggKeep(q, t)
	case "q1":
		return e.checkCount(t, e.byStatus[500])
	case "q2":
		return e.checkGroups(t, "status", func(k any) (float64, bool) {
			s, ok := k.(float64)
			c, found := e.byStatus[int64(s)]
			return float64(c), ok && found
		}, len(e.byStatus), 0)
	case "q3":
		return e.checkGroups(t, "method", func(k any) (float64, bool) {
			m, _ := k.(string)
			c, found := e.durCnt[m]
			return e.durSum[m] / float64(c), found
		}, len(e.durCnt), 1e-9)
	case "q4":
		return e.checkGroups(t, "_time", func(k any) (float64, bool) {
			s, _ := k.(string)
			ts, err := time.Parse(time.RFC3339Nano, s)
			c, found := e.byMinute[ts.UnixNano()]
			return float64(c), err == nil && found
		}, len(e.byMinute), 0)
	case "q5":
		return e.checkTopURIs(t)
	case "q6":
		// The engine's percentile may come from a sketch; 2% relative error
		// is what a DDSketch-class estimate guarantees comfortably.
		return e.checkGroups(t, "server_datacenter", func(k any) (float64, bool) {
			dc, _ := k.(string)
			p, found := e.p95ByDC()[dc]
			return p, found
		}, len(e.durByDC), 0.02)
	case "q7":
		return e.checkCount(t, e.api)
	case "s1":
		return e.checkCount(t, e.rare)
	case "s2":
		return e.checkCount(t, e.common)
	case "w1":
		from := time.Date(2024, 3, 1, 12, 0, 0, 0, time.UTC)
		n := 0
		for m := range 5 {
			n += e.byMinute[from.Add(time.Duration(m)*time.Minute).UnixNano()]
		}
		return e.checkCount(t, n)
	case "t1":
		return checkTopDurations(t, e.durErr)
	case "t2":
		var all []float64
		for _, d := range e.durByDC {
			all = append(all, d...)
		}
		return checkTopDurations(t, all)
	}
	return fmt.Errorf("no check for %s", q.id)
}

func (e *expected) checkCount(t *table, want int) error {
	if len(t.rows) != 1 || len(t.rows[0]) != 1 {
		return fmt.Errorf("want one count cell, got %d rows of %v", len(t.rows), t.names)
	}
	if got, _ := t.rows[0][0].(float64); got != float64(want) {
		return fmt.Errorf("count is %v, want %d", t.rows[0][0], want)
	}
	return nil
}

// checkGroups compares a two-column answer (key, value) with want, which
// returns the true value of a key; tol is the relative error allowed.
func (e *expected) checkGroups(t *table, key string, want func(any) (float64, bool), groups int, tol float64) error {
	k := t.col(key)
	if k < 0 || len(t.names) != 2 {
		return fmt.Errorf("want columns %q and a value, got %v", key, t.names)
	}
	if len(t.rows) != groups {
		return fmt.Errorf("%d groups, want %d", len(t.rows), groups)
	}
	v := 1 - k
	for _, r := range t.rows {
		w, ok := want(r[k])
		if !ok {
			return fmt.Errorf("unexpected group %s = %v", key, r[k])
		}
		got, isNum := r[v].(float64)
		if !isNum || math.Abs(got-w) > tol*math.Abs(w) {
			return fmt.Errorf("%s = %v: got %v, want %v", key, r[k], r[v], w)
		}
	}
	return nil
}

// checkTopURIs accepts any order among equal counts at the cut.
func (e *expected) checkTopURIs(t *table) error {
	u, c := t.col("uri"), t.col("count_")
	if u < 0 || c < 0 || len(t.rows) != 10 {
		return fmt.Errorf("want 10 rows of uri and count_, got %d rows of %v", len(t.rows), t.names)
	}
	counts := make([]int, 0, len(e.byURI))
	for _, n := range e.byURI {
		counts = append(counts, n)
	}
	slices.SortFunc(counts, func(a, b int) int { return cmp.Compare(b, a) })
	for i, r := range t.rows {
		uri, _ := r[u].(string)
		got, _ := r[c].(float64)
		if got != float64(e.byURI[uri]) || got != float64(counts[i]) {
			return fmt.Errorf("row %d: %q counted %v; true count %d, true rank-%d count %d", i, uri, r[c], e.byURI[uri], i+1, counts[i])
		}
	}
	return nil
}

// checkTopDurations checks that the req_duration_ms column holds the 10
// largest of xs, largest first.
func checkTopDurations(t *table, xs []float64) error {
	c := t.col("req_duration_ms")
	if c < 0 || len(t.rows) != 10 {
		return fmt.Errorf("want 10 rows with req_duration_ms, got %d rows of %v", len(t.rows), t.names)
	}
	want := slices.Clone(xs)
	slices.SortFunc(want, func(a, b float64) int { return cmp.Compare(b, a) })
	for i, r := range t.rows {
		if got, _ := r[c].(float64); got != want[i] {
			return fmt.Errorf("row %d: req_duration_ms %v, want %v", i, r[c], want[i])
		}
	}
	return nil
}

// p95ByDC is the exact 95th percentile of req_duration_ms per datacenter,
// computed once.
func (e *expected) p95ByDC() map[string]float64 {
	if e.p95 == nil {
		e.p95 = map[string]float64{}
		for dc, d := range e.durByDC {
			e.p95[dc] = percentile(d, 95)
		}
	}
	return e.p95
}

// percentile is the nearest-rank percentile of xs (sorted in place).
func percentile(xs []float64, p float64) float64 {
	slices.Sort(xs)
	i := int(math.Ceil(p/100*float64(len(xs)))) - 1
	return xs[max(i, 0)]
}

// TestExpectedReadsEvents checks the byte-level reader behind the answer
// checks against the generator's own values (decoded by encoding/json).
func TestExpectedReadsEvents(t *testing.T) {
	const n = 3000
	e := newExpected()
	if err := e.addNDJSON(gen.NDJSONWith(5, n, benchShape)); err != nil {
		t.Fatal(err)
	}
	g := newGen(5, n)
	want := newExpected()
	for range n {
		ev := g.Event()
		ts, err := time.Parse(time.RFC3339Nano, ev["_time"].(string))
		if err != nil {
			t.Fatal(err)
		}
		want.n++
		want.byStatus[ev["status"].(int64)]++
		m := ev["method"].(string)
		want.durSum[m] += number(ev["req_duration_ms"])
		want.durCnt[m]++
		want.byMinute[ts.Truncate(time.Minute).UnixNano()]++
		uri := ev["uri"].(string)
		want.byURI[uri]++
		dc := ev["server_datacenter"].(string)
		want.durByDC[dc] = append(want.durByDC[dc], number(ev["req_duration_ms"]))
		if ev["status"].(int64) >= 500 {
			want.durErr = append(want.durErr, number(ev["req_duration_ms"]))
		}
		want.addGap(m, dc, ev["status"].(int64), ev["is_tls"] == false, number(ev["req_duration_ms"]))
		if strings.Contains(strings.ToLower(uri), "api") {
			want.api++
		}
		if msg, ok := ev["message"].(string); ok {
			terms := store.Terms(msg)
			if slices.Contains(terms, gen.RareWord) {
				want.rare++
			}
			if slices.Contains(terms, gen.CommonWord) {
				want.common++
			}
		}
	}
	if !reflect.DeepEqual(e, want) {
		t.Fatalf("reading the NDJSON bytes gives other answers than the events:\n%+v\n%+v", e.byStatus, want.byStatus)
	}
	if e.n != n || e.api == 0 || len(e.byMinute) < 500 || benchShape != gen.Tidy && e.common == 0 {
		t.Fatalf("implausible expectations: %d events, %d api, %d minutes", e.n, e.api, len(e.byMinute))
	}
}

// TestChecksRejectWrongAnswers makes sure the answer checks can fail:
// an off-by-one count, a missing group and a wrong average are caught.
func TestChecksRejectWrongAnswers(t *testing.T) {
	e := newExpected()
	if err := e.addNDJSON(gen.NDJSONWith(6, 2000, benchShape)); err != nil {
		t.Fatal(err)
	}
	q := func(id string) benchQuery {
		for _, q := range benchQueries {
			if q.id == id {
				return q
			}
		}
		t.Fatalf("no query %s", id)
		return benchQuery{}
	}
	count := &table{names: []string{"count_"}, rows: [][]any{{float64(e.api)}}}
	if err := e.check(q("q7"), count); err != nil {
		t.Fatalf("right q7 answer rejected: %v", err)
	}
	count.rows[0][0] = float64(e.api + 1)
	if e.check(q("q7"), count) == nil {
		t.Error("q7 count off by one accepted")
	}
	groups := &table{names: []string{"status", "count_"}}
	for s, c := range e.byStatus {
		groups.rows = append(groups.rows, []any{float64(s), float64(c)})
	}
	if err := e.check(q("q2"), groups); err != nil {
		t.Fatalf("right q2 answer rejected: %v", err)
	}
	groups.rows = groups.rows[1:]
	if e.check(q("q2"), groups) == nil {
		t.Error("q2 with a missing group accepted")
	}
	avgs := &table{names: []string{"method", "avg_req_duration_ms"}}
	for m, s := range e.durSum {
		avgs.rows = append(avgs.rows, []any{m, s / float64(e.durCnt[m]) * 1.001})
	}
	if e.check(q("q3"), avgs) == nil {
		t.Error("q3 averages 0.1% off accepted")
	}
}

// number reads a generated number: a whole req_duration_ms of the real
// shape decodes as an int64.
func number(v any) float64 {
	if i, ok := v.(int64); ok {
		return float64(i)
	}
	return v.(float64)
}
