package core

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/aplite/aplite/core/exec"
	"github.com/aplite/aplite/core/render"
)

// hang is a node's Run that never answers: it returns only when the
// fragment's context ends, as a call to a stopped process does.
func hang(ctx context.Context, _ string, _ *exec.Fragment) ([]byte, error) {
	<-ctx.Done()
	return nil, ctx.Err()
}

// A peer that does not answer within Distribution.Timeout is given up on
// and its blocks are scanned here: the answer is whole, the failure says
// how long the node was waited for.
func TestHungPeerGivenUpAfterTimeout(t *testing.T) {
	c := newTestCluster(t)
	const q = "['logs'] | summarize count() by method"
	want, _ := tabularJSON(t, c.a, exec.Request{APL: q, DisableCache: true})
	var fails []string
	d := c.distribution(&fails)
	d.Run, d.Timeout, d.MinRows = hang, 100*time.Millisecond, 1
	start := time.Now()
	got, st := tabularJSON(t, c.a, exec.Request{APL: q, DisableCache: true, Distribute: d})
	if took := time.Since(start); took > 2*time.Second {
		t.Errorf("answered after %s with a 100ms fragment timeout", took)
	}
	if !sameJSONNumbers(got, want) || st.IsPartial {
		t.Errorf("got %s (partial %v), want %s", got, st.IsPartial, want)
	}
	if len(fails) != 1 || !strings.Contains(fails[0], c.bName+": did not answer within 100ms") {
		t.Errorf("failures %v", fails)
	}
}

// The fragment timeout is cut to what the query has left: a hung ingest
// node with no timeout of its own still leaves the query time to answer
// partial before its deadline, rather than failing with it.
func TestHungIngestWithinQueryDeadline(t *testing.T) {
	c := newFreshCluster(t)
	flushed, _ := tabularJSON(t, c.a, exec.Request{APL: "['logs'] | count", DisableCache: true})
	d := c.distribution(nil)
	d.Run = hang
	var partial []error
	d.OnPartial = func(node string, err error) { partial = append(partial, err) }
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	defer cancel()
	r, err := c.a.Query(ctx, &exec.Request{APL: "['logs'] | count", DisableCache: true, Distribute: d})
	if err != nil {
		t.Fatalf("query with a hung ingest node: %v", err)
	}
	tr := render.Tabular(r)
	got, _ := json.Marshal(tr.Tables[0].Columns)
	if string(got) != flushed || !tr.Status.IsPartial || len(partial) != 1 || !errors.Is(partial[0], exec.ErrNoAnswer) {
		t.Errorf("got %s (flushed %s), partial %v, reported %v", got, flushed, tr.Status.IsPartial, partial)
	}
	if len(tr.Status.Messages) == 0 || !strings.Contains(tr.Status.Messages[0].Msg, "ingest node ing") ||
		!strings.Contains(tr.Status.Messages[0].Msg, "did not answer within 1.") { // three quarters of 2s, less planning
		t.Errorf("messages %+v", tr.Status.Messages)
	}
}
