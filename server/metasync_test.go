package server

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/aplite/aplite/core/store"
	"github.com/aplite/aplite/db"
	"github.com/aplite/aplite/internal/testutil"
)

// writerNode is an ingest node on objs (its own writer slot) that takes
// part in publishing the metadata.
func writerNode(t *testing.T, objs db.ObjectStore) *testServer {
	t.Helper()
	dir := t.TempDir()
	st := db.StoreOptions{Objects: objs, NoSync: true, Refresh: 50 * time.Millisecond, LeaseTTL: 3 * time.Second}
	d, err := db.Open(dir, db.Options{Store: st, Isolated: true})
	if err != nil {
		t.Fatal(err)
	}
	return newTestServerConfig(t, Config{DataDir: dir, DB: d, Objects: objs, MetaRole: MetaPublish,
		MetaRefresh: 50 * time.Millisecond, StoreOptions: st})
}

// Two ingest nodes on one prefix: one publishes the metadata, the other
// follows it read-only, and a dataset created on the first takes events
// on the second at once. When the publisher stops, the other takes its
// place: its changes reach the bucket, and a query node sees them.
func TestMetadataOnePublisherAmongWriters(t *testing.T) {
	objs := store.NewMemObjects()
	a := writerNode(t, objs)
	b := writerNode(t, objs)
	if a.s.metaSync.lease.Load() == nil || b.s.metaSync.lease.Load() != nil {
		t.Fatal("want the first writer to publish the metadata and the second to follow")
	}
	a.createDataset("logs")
	b.must(req{method: "POST", path: "/v1/datasets/logs/ingest", contentType: "application/x-ndjson",
		body: "{\"n\":1}\n{\"n\":2}\n"}, 200)
	b.mustErr(req{method: "POST", path: "/v2/datasets", body: map[string]any{"name": "early"}}, 503, "another ingest node publishes")
	b.mustErr(req{method: "DELETE", path: "/v2/datasets/logs"}, 503, "another ingest node publishes")
	a.must(req{method: "POST", path: "/v1/datasets/logs/ingest", contentType: "application/x-ndjson", body: "{\"n\":3}\n"}, 200)

	if err := a.s.Shutdown(context.Background()); err != nil {
		t.Fatal(err)
	}
	testutil.Eventually(t, 10*time.Second, func() bool {
		return b.do(req{method: "POST", path: "/v2/datasets", body: map[string]any{"name": "other"}}).status == 200
	}, "the second writer never took over publishing the metadata")

	q, err := db.OpenRemote(db.Options{Store: db.StoreOptions{Objects: objs, Refresh: time.Hour}, Isolated: true})
	if err != nil {
		t.Fatal(err)
	}
	qs := newTestServerConfig(t, Config{DataDir: t.TempDir(), DB: q, Objects: objs, MetaRole: MetaFollow,
		MetaRefresh: 50 * time.Millisecond})
	testutil.Eventually(t, 10*time.Second, func() bool {
		var sets []struct{ Name string }
		qs.must(req{method: "GET", path: "/v2/datasets"}, 200).json(t, &sets)
		names := map[string]bool{}
		for _, s := range sets {
			names[s.Name] = true
		}
		return names["logs"] && names["other"]
	}, "the query node does not list the datasets both writers created")
}

// A publisher restarted on its data directory after a crash (its lease
// still live, left by the dead process) publishes at once: a single
// ingest node must not wait out the lease to take its own metadata back.
func TestMetadataPublisherRestartTakesOwnLease(t *testing.T) {
	objs := store.NewMemObjects()
	dir := t.TempDir()
	st := db.StoreOptions{Objects: objs, NoSync: true, Refresh: 50 * time.Millisecond, LeaseTTL: time.Minute}
	d, err := db.Open(dir, db.Options{Store: st, Isolated: true})
	if err != nil {
		t.Fatal(err)
	}
	node, err := os.ReadFile(filepath.Join(dir, "writer-id"))
	if err != nil {
		t.Fatal(err)
	}
	host, _ := os.Hostname()
	if _, err := db.TakeLease(t.Context(), objs, metaLeaseKey, host, strings.TrimSpace(string(node)), 1, time.Minute, nil); err != nil {
		t.Fatal(err) // the crashed process's, live for a minute
	}
	ts := newTestServerConfig(t, Config{DataDir: dir, DB: d, Objects: objs, MetaRole: MetaPublish,
		MetaRefresh: 50 * time.Millisecond, StoreOptions: st})
	ts.createDataset("logs")
}
