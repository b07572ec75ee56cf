package server

import (
	"net/http"
	"net/http/httptest"
	"testing"
)

// externaldata reads only URLs under the configured prefixes; without a
// list the operator is refused with a message saying how to enable it.
func TestExternalDataAllowList(t *testing.T) {
	src := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Write([]byte("a,1\nb,2\n"))
	}))
	defer src.Close()
	q := func(url string) req {
		return req{method: "POST", path: "/v1/datasets/_apl?format=tabular",
			body: map[string]any{"apl": `externaldata (k:string, v:long) ["` + url + `"] | summarize sum(v)`}}
	}
	off := newTestServer(t)
	off.mustErr(q(src.URL+"/x.csv"), 400, "externaldata-allow")

	on := newTestServerConfig(t, Config{ExternalDataAllow: []string{src.URL + "/ok/"}})
	var res tabular
	on.must(q(src.URL+"/ok/x.csv"), 200).json(t, &res)
	if got := res.Tables[0].Columns[0][0]; got != float64(3) {
		t.Errorf("sum = %v", got)
	}
	on.mustErr(q(src.URL+"/other/x.csv"), 400, "allow-list")
}
