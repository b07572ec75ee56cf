package server

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/aplite/aplite/server/meta"
)

// Notifier URLs that reach the server's own network are refused when the
// notifier is saved, naming the field and why.
func TestNotifierURLPolicyOnSave(t *testing.T) {
	ts := newTestServer(t)
	hook := func(url string) req {
		return req{method: "POST", path: "/v2/notifiers", body: map[string]any{"name": "n",
			"properties": map[string]any{"webhook": map[string]any{"url": url}}}}
	}
	for url, why := range map[string]string{
		"http://127.0.0.1:9/":                      "127.0.0.1 is a loopback address",
		"http://[::1]/":                            "::1 is a loopback address",
		"http://169.254.169.254/latest/meta-data/": "169.254.169.254 is a link-local address",
		"http://10.1.2.3/":                         "10.1.2.3 is a private address",
		"http://172.16.0.1/":                       "172.16.0.1 is a private address",
		"http://192.168.1.1/":                      "192.168.1.1 is a private address",
		"http://[fd00::1]/":                        "fd00::1 is a private address",
		"http://100.64.0.1/":                       "100.64.0.1 is a private address",
		"http://[::ffff:127.0.0.1]/":               "::ffff:127.0.0.1 is a loopback address",
		"http://0.0.0.0:8080/":                     "0.0.0.0 is an unspecified address",
		"http://239.1.2.3/":                        "239.1.2.3 is a multicast or broadcast address",
		"http://localhost:8080/":                   "localhost is a loopback name",
		"ftp://example.com/":                       "must be an http or https URL",
	} {
		ts.mustErr(hook(url), 400, "properties.webhook.url: "+why)
	}
	ts.mustErr(req{method: "POST", path: "/v2/notifiers", body: map[string]any{"name": "n", "properties": map[string]any{
		"customWebhook": map[string]any{"URL": "http://169.254.169.254/", "Body": "{}"}}}}, 400, "properties.customWebhook.URL: 169.254.169.254")
	var n struct{ ID string }
	ts.must(hook("https://hooks.example.com/x"), 200).json(t, &n)
	ts.mustErr(req{method: "PUT", path: "/v2/notifiers/" + n.ID, body: map[string]any{"name": "n",
		"properties": map[string]any{"webhook": map[string]any{"url": "http://10.0.0.1/"}}}}, 400, "properties.webhook.url: 10.0.0.1 is a private")

	// The operator allows a network, or a host by name.
	allowed := newTestServerConfig(t, Config{NotifyAllow: []string{"127.0.0.0/8", "hooks.internal"}})
	allowed.must(req{method: "POST", path: "/v2/notifiers", body: map[string]any{"name": "n",
		"properties": map[string]any{"webhook": map[string]any{"url": "http://127.0.0.1:9/"}}}}, 200)
	allowed.must(req{method: "POST", path: "/v2/notifiers", body: map[string]any{"name": "n",
		"properties": map[string]any{"webhook": map[string]any{"url": "http://hooks.internal/"}}}}, 200)
	allowed.mustErr(req{method: "POST", path: "/v2/notifiers", body: map[string]any{"name": "n",
		"properties": map[string]any{"webhook": map[string]any{"url": "http://10.0.0.1/"}}}}, 400, "10.0.0.1 is a private")
	if err := ParseNotifyAllow([]string{"10.0.0.0/33"}); err == nil || !strings.Contains(err.Error(), `-notify-allow "10.0.0.0/33"`) {
		t.Errorf("a bad CIDR: %v", err)
	}
}

// firing stores a notifier (as one saved before the policy, or a name
// whose address changed since, would be) and a monitor that fires on
// every run, and returns a function that runs it and returns the
// delivery.
func firing(ts *testServer, url string) func() deliveryEntry {
	n := meta.Notifier{ID: "n1", Name: "n", Properties: json.RawMessage(`{"webhook":{"url":"` + url + `"}}`)}
	m := meta.Monitor{ID: "m1", Name: "m", Type: "Threshold", Operator: "Above", APLQuery: "print v = 5",
		IntervalMinutes: 1, NotifyEveryRun: true, NotifierIDs: []string{"n1"}}
	if err := ts.s.meta.Put(meta.KindNotifier, ts.org, n.ID, n); err != nil {
		ts.t.Fatal(err)
	}
	if err := ts.s.meta.Put(meta.KindMonitor, ts.org, m.ID, m); err != nil {
		ts.t.Fatal(err)
	}
	now := time.Now()
	return func() deliveryEntry {
		ts.t.Helper()
		now = now.Add(time.Minute)
		ts.s.runDueMonitors(now)
		r := ts.lastRun("m1")
		if len(r.Notified) != 1 {
			ts.t.Fatalf("run %+v", r)
		}
		return r.Notified[0]
	}
}

// At delivery the address each connection dials is checked after DNS: a
// name that resolves to loopback is refused, and so is a redirect to
// loopback from a host the operator allowed; the history says only that
// the delivery failed, and the status when the target answered.
func TestNotifierURLPolicyOnDelivery(t *testing.T) {
	notifyBackoff = time.Millisecond
	var hits atomic.Int64
	status := atomic.Int64{}
	status.Store(200)
	target := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		hits.Add(1)
		w.WriteHeader(int(status.Load()))
	}))
	defer target.Close()
	port := target.URL[strings.LastIndex(target.URL, ":")+1:]

	// By default: the name localhost resolves to loopback and is refused.
	ts := newTestServerConfig(t, Config{MonitorTick: -1})
	deliver := firing(ts, "http://localhost:"+port+"/")
	if e := deliver(); e.OK || e.Error != "delivery failed" || e.Status != 0 || hits.Load() != 0 {
		t.Fatalf("delivery to a name of loopback: %+v, %d requests arrived", e, hits.Load())
	}

	// Allowed: the alert arrives; a target that answers 403 is named so.
	ok := newTestServerConfig(t, Config{MonitorTick: -1, NotifyAllow: []string{"127.0.0.0/8", "::1/128"}})
	deliver = firing(ok, "http://localhost:"+port+"/")
	if e := deliver(); !e.OK || hits.Load() != 1 {
		t.Fatalf("delivery with -notify-allow 127.0.0.0/8: %+v, %d requests", e, hits.Load())
	}
	status.Store(403)
	if e := deliver(); e.OK || e.Status != 403 || e.Error != "delivery failed: the target answered 403" {
		t.Fatalf("a target answering 403: %+v", e)
	}

	// A host allowed by name that redirects to an address not allowed.
	status.Store(200)
	hits.Store(0)
	redirect := httptest.NewServer(http.RedirectHandler(target.URL+"/x", http.StatusTemporaryRedirect))
	defer redirect.Close()
	byName := newTestServerConfig(t, Config{MonitorTick: -1, NotifyAllow: []string{"localhost"}})
	deliver = firing(byName, "http://localhost:"+redirect.URL[strings.LastIndex(redirect.URL, ":")+1:]+"/")
	if e := deliver(); e.OK || e.Error != "delivery failed" || hits.Load() != 0 {
		t.Fatalf("a redirect to loopback: %+v, %d requests reached it", e, hits.Load())
	}
}
