package core

import (
	"encoding/json"
	"fmt"
	"math"
	"reflect"
	"sort"
	"strings"
	"testing"

	"github.com/aplite/aplite/core/exec"
)

// TestSummarizeAgreesWithFilter: for every value v of a key,
// `summarize count() by g` reports exactly what `where g == v | count` does.
func TestSummarizeAgreesWithFilter(t *testing.T) {
	e := NewEngine(exec.StoreCatalog(fixtureDB(t, 4, true)))
	for _, g := range []string{"method", "server_datacenter", "uri", "is_tls", "resp_body_size_bytes / 1000"} {
		r := mustQuery(t, e, "logs | extend g = "+g+" | summarize count() by g")
		for _, row := range rows(r) {
			lit := fmt.Sprintf("%v", row[0])
			if s, ok := row[0].(string); ok {
				lit = fmt.Sprintf("%q", s)
			}
			c := mustQuery(t, e, "logs | extend g = "+g+" | where g == "+lit+" | count")
			if got := rows(c)[0][0]; got != row[1] {
				t.Errorf("g=%s v=%v: summarize says %v, where|count says %v", g, row[0], row[1], got)
			}
		}
	}
}

// TestTopEqualsSortTake: `top N by x` and `sort by x | take N` (which the
// planner runs as a top) are the first N rows of the full sort.
func TestTopEqualsSortTake(t *testing.T) {
	e := NewEngine(exec.StoreCatalog(fixtureDB(t, 4, true)))
	for _, k := range []string{"resp_body_size_bytes desc", "req_duration_ms asc", "_time desc", "id asc", "status asc, id desc"} {
		all := rows(mustQuery(t, e, fmt.Sprintf("logs | sort by %s | project id, uri", k)))
		for _, n := range []int{0, 1, 7, 50, 500} {
			want := all[:min(n, len(all))]
			if n == 0 {
				want = nil
			}
			for _, q := range []string{"logs | top %d by %s | project id, uri", "logs | sort by %[2]s | take %[1]d | project id, uri"} {
				if strings.Contains(k, ",") && strings.Contains(q, "top") {
					continue // top takes one key
				}
				got := rows(mustQuery(t, e, fmt.Sprintf(q, n, k)))
				if len(got) == 0 && len(want) == 0 {
					continue
				}
				if !reflect.DeepEqual(got, want) {
					t.Errorf("%s differs from the first %d rows of the sort:\n%v\n%v", fmt.Sprintf(q, n, k), n, got, want)
				}
			}
		}
	}
}

// TestProjectAwayComplementsProject: the columns project-away keeps are
// exactly those project does not name.
func TestProjectAwayComplementsProject(t *testing.T) {
	e := NewEngine(exec.StoreCatalog(fixtureDB(t, 2, false)))
	all, _ := mustQuery(t, e, "logs | take 1").Columns()
	picked := []string{"method", "uri", "_time"}
	away, _ := mustQuery(t, e, "logs | project-away method, uri, _time | take 1").Columns()
	kept, _ := mustQuery(t, e, "logs | project method, uri, _time | take 1").Columns()
	union := append(append([]string(nil), away...), kept...)
	sort.Strings(union)
	sorted := append([]string(nil), all...)
	sort.Strings(sorted)
	if !reflect.DeepEqual(union, sorted) || !reflect.DeepEqual(kept, picked) {
		t.Errorf("project-away %v + project %v != all %v", away, kept, all)
	}
}

// TestAnswersIndependentOfExecution: the same answers with 1 and N
// workers, with and without the column cache, over blocks and over the
// in-memory buffer, and with the scan's part pruning defeated.
func TestAnswersIndependentOfExecution(t *testing.T) {
	queries := []string{
		"logs | summarize count(), sum(resp_body_size_bytes), avg(req_duration_ms) by method | sort by method asc",
		"logs | where status == 500 | count",
		"logs | where _time > datetime(2024-03-26T12:30:00Z) | summarize count() by bin(_time, 10m)",
		"logs | summarize dcount(uri), min(_time), max(_time)",
		"logs | top 5 by resp_body_size_bytes | project id",
		"logs | distinct server_datacenter | sort by server_datacenter asc",
	}
	blocks := NewEngine(exec.StoreCatalog(fixtureDB(t, 5, true)))
	buffer := NewEngine(exec.StoreCatalog(fixtureDB(t, 3, false)))
	for _, q := range queries {
		want := stableJSON(mustQuery(t, blocks, q, func(r *exec.Request) { r.Workers = 1 }))
		variants := map[string]string{
			"N workers":  stableJSON(mustQuery(t, blocks, q, func(r *exec.Request) { r.Workers = 4 })),
			"no cache":   stableJSON(mustQuery(t, blocks, q, func(r *exec.Request) { r.DisableCache, r.NoColumnCache = true, true })),
			"buffer":     stableJSON(mustQuery(t, buffer, q)),
			"no pruning": stableJSON(mustQuery(t, blocks, "logs | extend __k = 1 | where __k == 1 | project-away __k | "+q[len("logs | "):])),
		}
		for name, got := range variants {
			if !sameAnswer(got, want) {
				t.Errorf("%s: %s differs:\n%s\nwant\n%s", q, name, got, want)
			}
		}
	}
}

// sameAnswer compares two stableJSON renderings, numbers within a relative
// 1e-12: summing reals in a different order (other workers, other part
// boundaries) may change the last bits, since floating-point addition is
// not associative; integers and everything else must match exactly.
func sameAnswer(a, b string) bool {
	var x, y any
	if json.Unmarshal([]byte(a), &x) != nil || json.Unmarshal([]byte(b), &y) != nil {
		return a == b
	}
	return sameJSON(x, y)
}

func sameJSON(x, y any) bool {
	switch xv := x.(type) {
	case float64:
		yv, ok := y.(float64)
		if !ok {
			return false
		}
		if xv == yv {
			return true
		}
		return math.Abs(xv-yv) <= 1e-12*math.Max(math.Abs(xv), math.Abs(yv))
	case []any:
		yv, ok := y.([]any)
		if !ok || len(xv) != len(yv) {
			return false
		}
		for i := range xv {
			if !sameJSON(xv[i], yv[i]) {
				return false
			}
		}
		return true
	case map[string]any:
		yv, ok := y.(map[string]any)
		if !ok || len(xv) != len(yv) {
			return false
		}
		for k := range xv {
			if !sameJSON(xv[k], yv[k]) {
				return false
			}
		}
		return true
	}
	return reflect.DeepEqual(x, y)
}
