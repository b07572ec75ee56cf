package compat

import (
	"testing"
	"time"

	"github.com/axiomhq/axiom-go/axiom"
	"github.com/axiomhq/axiom-go/axiom/query"
)

// axiom-go reads the row limits as Axiom documents them: an explicit
// take is honoured past 1,000 rows, a query without a limit gets 1,000
// and a default_limit_warning message it decodes, and paging with the
// cursor walks forward through every event.
func TestRowLimitsAsAxiomGoReadsThem(t *testing.T) {
	h := start(t)
	if _, err := h.client.Datasets.Create(h.ctx, axiom.DatasetCreateRequest{Name: "big"}); err != nil {
		t.Fatal(err)
	}
	base := time.Now().UTC().Add(-time.Hour)
	events := make([]axiom.Event, 2500)
	for i := range events {
		events[i] = axiom.Event{"_time": base.Add(-time.Duration(len(events)-i) * time.Second).Format(time.RFC3339Nano), "n": i}
	}
	if st, err := h.client.Datasets.IngestEvents(h.ctx, "big", events); err != nil || st.Ingested != 2500 {
		t.Fatalf("ingest %+v %v", st, err)
	}
	res, err := h.client.Datasets.Query(h.ctx, "['big'] | take 2000")
	if err != nil || len(res.Tables) != 1 || len(res.Tables[0].Columns[0]) != 2000 || res.Status.IsPartial {
		t.Fatalf("take 2000: %v rows, %+v, %v", rows(res), res.Status, err)
	}
	res, err = h.client.Datasets.Query(h.ctx, "['big']")
	if err != nil || len(res.Tables[0].Columns[0]) != 1000 {
		t.Fatalf("no limit: %v rows, %v", rows(res), err)
	}
	found := false
	for _, m := range res.Status.Messages {
		found = found || m.Code == "default_limit_warning" && m.Priority == "warn" && m.Count == 1 && m.Msg == "A default limit of 1000 was applied"
	}
	if !found {
		t.Errorf("no default limit warning among %+v", res.Status.Messages)
	}
	seen, cursor := 0, ""
	for page := 0; page < 5; page++ {
		var opts []query.Option
		if cursor != "" {
			opts = append(opts, query.SetCursor(cursor, false))
		}
		if res, err = h.client.Datasets.Query(h.ctx, "['big']", opts...); err != nil {
			t.Fatal(err)
		}
		n := rows(res)
		if n == 0 {
			break
		}
		seen += n
		cursor = res.Status.MinCursor
	}
	if seen != 2500 {
		t.Errorf("paging with the cursor saw %d events of 2500", seen)
	}
}

// rows is the first table's row count.
func rows(res *query.Result) int {
	if res == nil || len(res.Tables) == 0 || len(res.Tables[0].Columns) == 0 {
		return 0
	}
	return len(res.Tables[0].Columns[0])
}
