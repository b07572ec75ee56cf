package compat

import (
	"bytes"
	"compress/gzip"
	"context"
	"encoding/json"
	"errors"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/axiomhq/axiom-go/axiom"
	"github.com/axiomhq/axiom-go/axiom/ingest"
	"github.com/axiomhq/axiom-go/axiom/query"
	"github.com/klauspost/compress/zstd"

	"github.com/aplite/aplite/server"
)

// harness is a real server on a loopback port and an axiom-go client for it.
type harness struct {
	t      *testing.T
	url    string
	org    string
	token  string
	strict *strictTransport
	client *axiom.Client
	ctx    context.Context
}

func start(t *testing.T) *harness {
	t.Helper()
	s, err := server.New(server.Config{DataDir: t.TempDir(), Token: "xapt-compat-suite-token", Log: &bytes.Buffer{}})
	if err != nil {
		t.Fatal(err)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- s.Serve(ln) }()
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		if err := s.Shutdown(ctx); err != nil {
			t.Errorf("shutdown: %v", err)
		}
		<-done
	})
	h := &harness{t: t, url: "http://" + ln.Addr().String(), org: s.OrgID(), token: s.Token(),
		strict: &strictTransport{base: http.DefaultTransport}, ctx: context.Background()}
	h.client = h.newClient(h.token)
	return h
}

// newClient returns an axiom-go client using token, with the strict
// decoding check on its transport.
func (h *harness) newClient(token string) *axiom.Client {
	h.t.Helper()
	opts := []axiom.Option{axiom.SetNoEnv(), axiom.SetURL(h.url), axiom.SetToken(token),
		axiom.SetClient(&http.Client{Transport: h.strict, Timeout: time.Minute}), axiom.SetNoRetry()}
	if strings.HasPrefix(token, "xapt-") {
		opts = append(opts, axiom.SetOrganizationID(h.org))
	}
	c, err := axiom.NewClient(opts...)
	if err != nil {
		h.t.Fatal(err)
	}
	return c
}

func TestOfficialGoClient(t *testing.T) {
	h := start(t)
	defer h.strict.check(t)
	t.Run("users", h.users)
	t.Run("orgs", h.orgs)
	t.Run("datasets", h.datasets)
	t.Run("ingest and query", h.ingestAndQuery)
	t.Run("annotations", h.annotations)
	t.Run("virtual fields", h.vfields)
	t.Run("tokens", h.tokens)
	t.Run("monitors and notifiers", h.monitorsAndNotifiers)
	t.Run("dashboards", h.dashboards)
}

func (h *harness) users(t *testing.T) {
	me, err := h.client.Users.Current(h.ctx)
	if err != nil || me.ID == "" || me.Role.Name != "owner" {
		t.Fatalf("current user %+v, %v", me, err)
	}
	u, err := h.client.Users.Create(h.ctx, axiom.CreateUserRequest{Name: "Ann", Email: "ann@example.com", Role: "user"})
	if err != nil {
		t.Fatal(err)
	}
	got, err := h.client.Users.Get(h.ctx, u.ID)
	if err != nil || *got != *u {
		t.Fatalf("get %+v != %+v (%v)", got, u, err)
	}
	if u, err = h.client.Users.Update(h.ctx, u.ID, axiom.UpdateUserRequest{Name: "Anne"}); err != nil || u.Name != "Anne" {
		t.Fatalf("update %+v %v", u, err)
	}
	if u, err = h.client.Users.UpdateUsersRole(h.ctx, u.ID, axiom.UpdateUserRoleRequest{Role: "admin"}); err != nil || u.Role.ID != "admin" {
		t.Fatalf("role %+v %v", u, err)
	}
	list, err := h.client.Users.List(h.ctx)
	if err != nil || len(list) != 2 {
		t.Fatalf("list %v %v", list, err)
	}
	if err := h.client.Users.Delete(h.ctx, u.ID); err != nil {
		t.Fatal(err)
	}
	if _, err := h.client.Users.Get(h.ctx, u.ID); !errors.Is(err, axiom.ErrNotFound) {
		t.Fatalf("deleted user: %v", err)
	}
}

func (h *harness) orgs(t *testing.T) {
	orgs, err := h.client.Organizations.List(h.ctx)
	if err != nil || len(orgs) != 1 || orgs[0].ID != h.org {
		t.Fatalf("orgs %+v %v", orgs, err)
	}
	o, err := h.client.Organizations.Get(h.ctx, h.org)
	if err != nil || o.ID != h.org || o.License.MaxDatasets == 0 {
		t.Fatalf("org %+v %v", o, err)
	}
}

func (h *harness) datasets(t *testing.T) {
	ds, err := h.client.Datasets.Create(h.ctx, axiom.DatasetCreateRequest{Name: "compat-ds", Description: "d"})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := h.client.Datasets.Create(h.ctx, axiom.DatasetCreateRequest{Name: "compat-ds"}); !errors.Is(err, axiom.ErrExists) {
		t.Fatalf("duplicate create: %v", err)
	}
	got, err := h.client.Datasets.Get(h.ctx, ds.ID)
	if err != nil || !equalJSON(got, ds) {
		t.Fatalf("get %+v != create %+v (%v)", got, ds, err)
	}
	upd, err := h.client.Datasets.Update(h.ctx, ds.ID, axiom.DatasetUpdateRequest{Description: "d2"})
	if err != nil || upd.Description != "d2" {
		t.Fatalf("update %+v %v", upd, err)
	}
	list, err := h.client.Datasets.List(h.ctx)
	if err != nil || len(list) != 1 || !equalJSON(list[0], upd) {
		t.Fatalf("list %+v %v", list, err)
	}
	if _, err := h.client.Datasets.CreateMapField(h.ctx, ds.ID, "attrs"); err != nil {
		t.Fatal(err)
	}
	mf, err := h.client.Datasets.ListMapFields(h.ctx, ds.ID)
	if err != nil || len(mf) != 1 || mf[0] != "attrs" {
		t.Fatalf("map fields %v %v", mf, err)
	}
	if mf, err = h.client.Datasets.UpdateMapFields(h.ctx, ds.ID, axiom.MapFields{}); err != nil || mf == nil || len(mf) != 0 {
		t.Fatalf("cleared map fields %#v %v", mf, err)
	}
	if _, err := h.client.Datasets.CreateMapField(h.ctx, ds.ID, "attrs"); err != nil {
		t.Fatal(err)
	}
	if err := h.client.Datasets.DeleteMapField(h.ctx, ds.ID, "attrs"); err != nil {
		t.Fatal(err)
	}
	if err := h.client.Datasets.Trim(h.ctx, ds.ID, time.Hour); err != nil {
		t.Fatal(err)
	}
	if err := h.client.Datasets.Delete(h.ctx, ds.ID); err != nil {
		t.Fatal(err)
	}
	_, err = h.client.Datasets.Get(h.ctx, ds.ID)
	var he axiom.HTTPError
	if !errors.Is(err, axiom.ErrNotFound) || !errors.As(err, &he) || he.TraceID == "" {
		t.Fatalf("deleted dataset: %v (trace id required on errors)", err)
	}
}

func equalJSON(a, b any) bool {
	x, _ := json.Marshal(a)
	y, _ := json.Marshal(b)
	return bytes.Equal(x, y)
}

func gz(b []byte) []byte {
	var buf bytes.Buffer
	w := gzip.NewWriter(&buf)
	w.Write(b)
	w.Close()
	return buf.Bytes()
}

func zst(b []byte) []byte {
	e, _ := zstd.NewWriter(nil)
	return e.EncodeAll(b, nil)
}

func (h *harness) ingestAndQuery(t *testing.T) {
	ds, err := h.client.Datasets.Create(h.ctx, axiom.DatasetCreateRequest{Name: "events"})
	if err != nil {
		t.Fatal(err)
	}
	jsonBody := []byte(`[{"time":"17/May/2015:08:05:30 +0000","remote_ip":"93.180.71.1","request":"GET /downloads/product_1 HTTP/1.1","response":304,"bytes":0},
{"time":"17/May/2015:08:05:31 +0000","remote_ip":"93.180.71.2","request":"GET /downloads/product_1 HTTP/1.1","response":404,"bytes":324}]`)
	st, err := h.client.Datasets.Ingest(h.ctx, ds.ID, bytes.NewReader(gz(jsonBody)), axiom.JSON, axiom.Gzip,
		ingest.SetTimestampField("time"), ingest.SetTimestampFormat("02/Jan/2006:15:04:05 -0700"),
		ingest.SetEventLabel("region", "eu-west-1"))
	if err != nil || st.Ingested != 2 || st.Failed != 0 || st.ProcessedBytes != uint64(len(jsonBody)+len(`{"region":"eu-west-1"}`)) {
		t.Fatalf("json ingest %+v %v", st, err)
	}
	ndjson := []byte("{\"response\":200,\"request\":\"GET /\"}\n{\"response\":500,\"request\":\"POST /x\"}\n")
	if st, err = h.client.Datasets.Ingest(h.ctx, ds.ID, bytes.NewReader(zst(ndjson)), axiom.NDJSON, axiom.Zstd); err != nil || st.Ingested != 2 {
		t.Fatalf("ndjson ingest %+v %v", st, err)
	}
	csvBody := []byte("response,request\n201,PUT /a\n")
	if st, err = h.client.Datasets.Ingest(h.ctx, ds.ID, bytes.NewReader(csvBody), axiom.CSV, axiom.Identity); err != nil || st.Ingested != 1 {
		t.Fatalf("csv ingest %+v %v", st, err)
	}
	if st, err = h.client.Datasets.Ingest(h.ctx, ds.ID, strings.NewReader("202;DELETE /b\n"), axiom.CSV, axiom.Identity,
		ingest.SetCSVFields("response", "request"), ingest.SetCSVDelimiter(";")); err != nil || st.Ingested != 1 {
		t.Fatalf("csv fields ingest %+v %v", st, err)
	}
	if st, err = h.client.Datasets.IngestEvents(h.ctx, ds.ID, []axiom.Event{{"response": 203}, {"response": 204}}); err != nil || st.Ingested != 2 {
		t.Fatalf("events ingest %+v %v", st, err)
	}

	res, err := h.client.Datasets.Query(h.ctx, "['events'] | count")
	if err != nil || len(res.Tables) != 1 || res.Tables[0].Columns[0][0] != float64(8) {
		t.Fatalf("count %+v %v", res, err)
	}
	if res.TraceID == "" {
		t.Error("query result without trace id")
	}
	res, err = h.client.Datasets.Query(h.ctx, "['events'] | where response >= v | project response, request | order by response asc",
		query.SetStartTime(time.Now().Add(-time.Hour)), query.SetEndTime(time.Now().Add(time.Minute)), query.SetVariable("v", 202))
	if err != nil || len(res.Tables) != 1 {
		t.Fatalf("filtered query %+v %v", res, err)
	}
	var rows [][]any
	for row := range res.Tables[0].Rows() {
		rows = append(rows, row)
	}
	if len(rows) != 4 || rows[0][0] != float64(202) || rows[0][1] != "DELETE /b" {
		t.Fatalf("rows %v", rows)
	}
	// The 2015 events are outside the last hour; a range covering them finds them.
	res, err = h.client.Datasets.Query(h.ctx, "['events'] | where region == 'eu-west-1' | count",
		query.SetStartTime(time.Date(2015, 5, 17, 0, 0, 0, 0, time.UTC)), query.SetEndTime(time.Date(2015, 5, 18, 0, 0, 0, 0, time.UTC)))
	if err != nil || res.Tables[0].Columns[0][0] != float64(2) {
		t.Fatalf("labelled events %+v %v", res, err)
	}
	if _, err := h.client.Datasets.Query(h.ctx, "['events'] | where ("); err == nil {
		t.Fatal("syntax error accepted")
	}
	if err := h.client.Datasets.Trim(h.ctx, ds.ID, 24*time.Hour); err != nil {
		t.Fatal(err)
	}
}

func (h *harness) annotations(t *testing.T) {
	base := time.Date(2024, 1, 1, 0, 0, 0, 0, time.UTC)
	a1, err := h.client.Annotations.Create(h.ctx, &axiom.AnnotationCreateRequest{Datasets: []string{"events"}, Type: "deployment",
		Title: "v1", Time: base})
	if err != nil {
		t.Fatal(err)
	}
	a2, err := h.client.Annotations.Create(h.ctx, &axiom.AnnotationCreateRequest{Datasets: []string{"other"}, Type: "incident",
		Time: base.Add(48 * time.Hour), EndTime: base.Add(50 * time.Hour)})
	if err != nil {
		t.Fatal(err)
	}
	got, err := h.client.Annotations.Get(h.ctx, a1.ID)
	if err != nil || !equalJSON(got, a1) {
		t.Fatalf("get %+v != %+v (%v)", got, a1, err)
	}
	list, err := h.client.Annotations.List(h.ctx, &axiom.AnnotationsFilter{Datasets: []string{"events"}})
	if err != nil || len(list) != 1 || list[0].ID != a1.ID {
		t.Fatalf("dataset filter %+v %v", list, err)
	}
	list, err = h.client.Annotations.List(h.ctx, &axiom.AnnotationsFilter{Start: base.Add(time.Hour), End: base.Add(72 * time.Hour)})
	if err != nil || len(list) != 1 || list[0].ID != a2.ID {
		t.Fatalf("time filter %+v %v", list, err)
	}
	upd, err := h.client.Annotations.Update(h.ctx, a1.ID, &axiom.AnnotationUpdateRequest{Title: "v1.1"})
	if err != nil || upd.Title != "v1.1" || upd.Type != "deployment" {
		t.Fatalf("update %+v %v", upd, err)
	}
	if _, err := h.client.Annotations.Create(h.ctx, &axiom.AnnotationCreateRequest{Datasets: []string{"events"}, Type: "Bad Type"}); err == nil {
		t.Fatal("invalid type accepted")
	}
	for _, a := range []*axiom.Annotation{a1, a2} {
		if err := h.client.Annotations.Delete(h.ctx, a.ID); err != nil {
			t.Fatal(err)
		}
	}
}

func (h *harness) vfields(t *testing.T) {
	vf, err := h.client.VirtualFields.Create(h.ctx, axiom.VirtualField{Dataset: "events", Name: "ok", Expression: "response < 400", Type: "bool"})
	if err != nil {
		t.Fatal(err)
	}
	got, err := h.client.VirtualFields.Get(h.ctx, vf.ID)
	if err != nil || *got != *vf {
		t.Fatalf("get %+v != %+v (%v)", got, vf, err)
	}
	list, err := h.client.VirtualFields.List(h.ctx, "events")
	if err != nil || len(list) != 1 || *list[0] != *vf {
		t.Fatalf("list %+v %v", list, err)
	}
	// The 2015 events were trimmed: 200, 201, 202, 203 and 204 remain ok.
	res, err := h.client.Datasets.Query(h.ctx, "['events'] | where ok | count")
	if err != nil || res.Tables[0].Columns[0][0] != float64(5) {
		t.Fatalf("virtual field in a query %+v %v", res, err)
	}
	if vf, err = h.client.VirtualFields.Update(h.ctx, vf.ID, axiom.VirtualField{Dataset: "events", Name: "ok", Expression: "response < 300"}); err != nil || vf.Expression != "response < 300" {
		t.Fatalf("update %+v %v", vf, err)
	}
	if err := h.client.VirtualFields.Delete(h.ctx, vf.ID); err != nil {
		t.Fatal(err)
	}
}

func (h *harness) tokens(t *testing.T) {
	if _, err := h.client.Datasets.Create(h.ctx, axiom.DatasetCreateRequest{Name: "secret"}); err != nil {
		t.Fatal(err)
	}
	created, err := h.client.Tokens.Create(h.ctx, axiom.CreateTokenRequest{Name: "query events", ExpiresAt: time.Now().Add(time.Hour),
		DatasetCapabilities: map[string]axiom.DatasetCapabilities{"events": {Query: []axiom.Action{axiom.ActionRead}}}})
	if err != nil {
		t.Fatal(err)
	}
	got, err := h.client.Tokens.Get(h.ctx, created.ID)
	if err != nil || !equalJSON(got, &created.APIToken) {
		t.Fatalf("get %+v != %+v (%v)", got, created.APIToken, err)
	}
	scoped := h.newClient(created.Token)
	if _, err := scoped.Datasets.Query(h.ctx, "['events'] | count"); err != nil {
		t.Fatalf("allowed query: %v", err)
	}
	for _, q := range []string{"['secret'] | count", "union ['events'], ['secret'] | count"} {
		if _, err := scoped.Datasets.Query(h.ctx, q); !errors.Is(err, axiom.ErrUnauthorized) {
			t.Fatalf("%s: %v, want forbidden", q, err)
		}
	}
	if _, err := scoped.Datasets.IngestEvents(h.ctx, "events", []axiom.Event{{"a": 1}}); !errors.Is(err, axiom.ErrUnauthorized) {
		t.Fatalf("ingest with a query token: %v", err)
	}
	regen, err := h.client.Tokens.Regenerate(h.ctx, created.ID, axiom.RegenerateTokenRequest{
		ExistingTokenExpiresAt: time.Now(), NewTokenExpiresAt: time.Now().Add(24 * time.Hour)})
	if err != nil || regen.ID == created.ID {
		t.Fatalf("regenerate %+v %v", regen, err)
	}
	list, err := h.client.Tokens.List(h.ctx)
	if err != nil || len(list) != 2 {
		t.Fatalf("tokens %+v %v", list, err)
	}
	if _, err := h.newClient(regen.Token).Datasets.Query(h.ctx, "['events'] | count"); err != nil {
		t.Fatalf("regenerated token: %v", err)
	}
	if _, err := scoped.Datasets.Query(h.ctx, "['events'] | count"); !errors.Is(err, axiom.ErrUnauthorized) {
		t.Fatalf("expired old token: %v", err)
	}
	for _, id := range []string{created.ID, regen.ID} {
		if err := h.client.Tokens.Delete(h.ctx, id); err != nil {
			t.Fatal(err)
		}
	}
}

func (h *harness) monitorsAndNotifiers(t *testing.T) {
	n, err := h.client.Notifiers.Create(h.ctx, axiom.Notifier{Name: "hook", Properties: axiom.NotifierProperties{
		CustomWebhook: &axiom.CustomWebhook{URL: "http://example.com/hook", Headers: map[string]string{"A": "b"}, Body: "{}"}}})
	if err != nil {
		t.Fatal(err)
	}
	gotN, err := h.client.Notifiers.Get(h.ctx, n.ID)
	if err != nil || !equalJSON(gotN, n) || gotN.Properties.CustomWebhook.URL != "http://example.com/hook" {
		t.Fatalf("notifier get %+v != %+v (%v)", gotN, n, err)
	}
	n.Name = "hook2"
	if n, err = h.client.Notifiers.Update(h.ctx, n.ID, *n); err != nil || n.Name != "hook2" {
		t.Fatalf("notifier update %+v %v", n, err)
	}
	m, err := h.client.Monitors.Create(h.ctx, axiom.MonitorCreateRequest{Monitor: axiom.Monitor{Name: "errors",
		Type: axiom.MonitorTypeThreshold, APLQuery: "['events'] | summarize count()", Operator: axiom.Above, Threshold: 5,
		Interval: time.Minute, Range: 5 * time.Minute, Delay: 10 * time.Second, NotifierIDs: []string{n.ID}}})
	if err != nil {
		t.Fatal(err)
	}
	if m.Range != 5*time.Minute || m.Delay != 10*time.Second || m.ID == "" {
		t.Fatalf("monitor %+v", m)
	}
	gotM, err := h.client.Monitors.Get(h.ctx, m.ID)
	if err != nil || !equalJSON(gotM, m) {
		t.Fatalf("monitor get %+v != %+v (%v)", gotM, m, err)
	}
	ms, err := h.client.Monitors.List(h.ctx)
	if err != nil || len(ms) != 1 || !equalJSON(ms[0], m) {
		t.Fatalf("monitors %+v %v", ms, err)
	}
	m.Threshold = 10
	if m, err = h.client.Monitors.Update(h.ctx, m.ID, axiom.MonitorUpdateRequest{Monitor: *m}); err != nil || m.Threshold != 10 {
		t.Fatalf("monitor update %+v %v", m, err)
	}
	if err := h.client.Monitors.Delete(h.ctx, m.ID); err != nil {
		t.Fatal(err)
	}
	if err := h.client.Notifiers.Delete(h.ctx, n.ID); err != nil {
		t.Fatal(err)
	}
}

func (h *harness) dashboards(t *testing.T) {
	payload := json.RawMessage(`{"uid":"dash-1","dashboard":{"name":"d","charts":[],"layout":[],"schemaVersion":2},"overwrite":true,"message":"m"}`)
	created, err := h.client.Dashboards.CreateRaw(h.ctx, payload)
	if err != nil {
		t.Fatal(err)
	}
	var c map[string]any
	json.Unmarshal(created, &c)
	if c["dashboard"].(map[string]any)["uid"] != "dash-1" {
		t.Fatalf("created %s", created)
	}
	if _, err := h.client.Dashboards.UpdateRaw(h.ctx, "dash-1", json.RawMessage(`{"dashboard":{"name":"d2"},"overwrite":true}`)); err != nil {
		t.Fatal(err)
	}
	got, err := h.client.Dashboards.GetRaw(h.ctx, "dash-1")
	if err != nil || !strings.Contains(string(got), `"name":"d2"`) {
		t.Fatalf("get %s %v", got, err)
	}
	list, err := h.client.Dashboards.ListRaw(h.ctx, &axiom.DashboardsListOptions{Limit: 10})
	if err != nil || !strings.Contains(string(list), `"uid":"dash-1"`) {
		t.Fatalf("list %s %v", list, err)
	}
	if err := h.client.Dashboards.Delete(h.ctx, "dash-1"); err != nil {
		t.Fatal(err)
	}
	if _, err := h.client.Dashboards.GetRaw(h.ctx, "dash-1"); !errors.Is(err, axiom.ErrNotFound) {
		t.Fatalf("deleted dashboard: %v", err)
	}
}
