package server

import (
	"strings"
	"testing"
)

// A monitor with a metrics (MPL) query is kept as axiom-go expects (the
// text comes back as aplQuery) though aplite cannot plan it, and can be
// re-saved as it came back; a text over the query limit is still refused.
func TestMonitorWithMPLQuery(t *testing.T) {
	ts := newTestServer(t)
	ts.createDataset("metrics")
	mpl := "`metrics`:`my-metric` | align to 5s using avg"
	var m struct {
		ID       string `json:"id"`
		APLQuery string `json:"aplQuery"`
		MPLQuery string `json:"mplQuery"`
	}
	ts.must(req{method: "POST", path: "/v2/monitors", body: map[string]any{"name": "mpl", "mplQuery": mpl, "operator": "BelowOrEqual"}}, 200).json(t, &m)
	if m.ID == "" || m.APLQuery != mpl || m.MPLQuery != "" {
		t.Fatalf("created %+v, want the MPL text as aplQuery", m)
	}
	ts.must(req{method: "PUT", path: "/v2/monitors/" + m.ID, body: map[string]any{"name": "mpl renamed", "aplQuery": mpl, "operator": "BelowOrEqual"}}, 200)
	// Changed, the text is an APL query again and is checked as one.
	ts.refused(req{method: "PUT", path: "/v2/monitors/" + m.ID, body: map[string]any{"name": "mpl", "aplQuery": mpl + " ", "operator": "BelowOrEqual"}},
		400, "aplQuery: 1:1", "aplQuery", 1, 1)
	huge := strings.Repeat("x", 2<<20)
	ts.must(req{method: "POST", path: "/v2/monitors", body: map[string]any{"name": "big", "mplQuery": huge, "operator": "Below"}}, 400)
}
