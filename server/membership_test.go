package server

import (
	"context"
	"encoding/json"
	"errors"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/aplite/aplite/core/store"
	"github.com/aplite/aplite/db"
	"github.com/aplite/aplite/internal/testutil"
)

// testMember is a node's membership over objs with the test's clock: it
// beats every 1 s (when the test says) and lasts 4 s.
func testMember(t *testing.T, objs db.ObjectStore, clock *testutil.Clock, addr, role string) *membership {
	t.Helper()
	return newMembership(objs, addr, role, time.Second, 4*time.Second, clock.Now, t.Logf)
}

// beatAndList is one tick of m, failing the test on an error.
func beatAndList(t *testing.T, m *membership) {
	t.Helper()
	ctx := context.Background()
	if err := m.beat(ctx); err != nil {
		t.Fatal(err)
	}
	if err := m.refresh(ctx); err != nil {
		t.Fatal(err)
	}
}

func wantPeers(t *testing.T, m *membership, want ...string) {
	t.Helper()
	if got := m.peers(); !slices.Equal(got, want) {
		t.Errorf("%s sees query nodes %v, want %v", m.self.Addr, got, want)
	}
}

// A node joining is a peer from the first listing after its first beat;
// one that stops beating is dropped once its TTL has passed on the
// reader's clock, not before; it is back from its next beat. Ingest nodes
// are listed but never sent fragments.
func TestMembershipJoinAndTTL(t *testing.T) {
	objs := store.NewMemObjects()
	clock := testutil.NewClock(time.Date(2026, 11, 28, 12, 0, 0, 0, time.UTC))
	a := testMember(t, objs, clock, "10.0.0.1:8080", memberQuery)
	beatAndList(t, a)
	wantPeers(t, a, "10.0.0.1:8080")

	b := testMember(t, objs, clock, "10.0.0.2:8080", memberQuery)
	ing := testMember(t, objs, clock, "10.0.0.9:8080", memberIngest)
	beatAndList(t, b)
	beatAndList(t, ing)
	beatAndList(t, a)
	beatAndList(t, b)
	wantPeers(t, a, "10.0.0.1:8080", "10.0.0.2:8080")
	wantPeers(t, b, "10.0.0.1:8080", "10.0.0.2:8080")
	if v := a.view(); len(v) != 3 || v[2].role != memberIngest || !v[2].alive {
		t.Errorf("a's view %+v, want the ingest node listed alive", v)
	}

	// a stops beating (a SIGKILL, a SIGSTOP); b goes on.
	clock.Advance(3 * time.Second)
	beatAndList(t, b)
	wantPeers(t, b, "10.0.0.1:8080", "10.0.0.2:8080") // 3 s < 4 s TTL
	clock.Advance(1500 * time.Millisecond)
	beatAndList(t, b)
	wantPeers(t, b, "10.0.0.2:8080")
	if v := b.view(); len(v) != 3 || v[0].addr != "10.0.0.1:8080" || v[0].alive {
		t.Errorf("b's view %+v, want a listed as gone", v)
	}

	// a resumes: one beat brings it back.
	beatAndList(t, a)
	beatAndList(t, b)
	wantPeers(t, b, "10.0.0.1:8080", "10.0.0.2:8080")
}

// A node that leaves cleanly deletes its heartbeat: the others drop it at
// their next listing, without waiting for its TTL.
func TestMembershipCleanLeave(t *testing.T) {
	objs := store.NewMemObjects()
	clock := testutil.NewClock(time.Now())
	a := testMember(t, objs, clock, "a:1", memberQuery)
	b := testMember(t, objs, clock, "b:1", memberQuery)
	beatAndList(t, a)
	beatAndList(t, b)
	wantPeers(t, b, "a:1", "b:1")
	a.close()
	if _, err := objs.Get(context.Background(), memberKey("a:1")); !errors.Is(err, store.ErrObjectNotFound) {
		t.Errorf("a's heartbeat after close: %v, want it deleted", err)
	}
	beatAndList(t, b)
	wantPeers(t, b, "b:1")
}

// A heartbeat left in the bucket by a node dead before this one started
// is not a member, and is deleted once it has been silent for ten TTLs
// (at least a minute); a node whose clock runs behind the reader's by
// more than its TTL is counted from its next beat instead of its first.
func TestMembershipStaleHeartbeat(t *testing.T) {
	objs := store.NewMemObjects()
	clock := testutil.NewClock(time.Date(2026, 11, 28, 12, 0, 0, 0, time.UTC))
	old := testutil.NewClock(clock.Now().Add(-time.Hour))
	dead := testMember(t, objs, old, "dead:1", memberQuery)
	if err := dead.beat(context.Background()); err != nil {
		t.Fatal(err)
	}
	a := testMember(t, objs, clock, "a:1", memberQuery)
	beatAndList(t, a)
	wantPeers(t, a, "a:1")

	// The same node beats again, its clock still an hour behind: the
	// object changed, so it is alive by the reader's clock.
	if err := dead.beat(context.Background()); err != nil {
		t.Fatal(err)
	}
	beatAndList(t, a)
	wantPeers(t, a, "a:1", "dead:1")

	clock.Advance(30 * time.Second)
	beatAndList(t, a)
	wantPeers(t, a, "a:1")
	if _, err := objs.Get(context.Background(), memberKey("dead:1")); err != nil {
		t.Errorf("a heartbeat silent for 30 s was deleted already: %v", err)
	}
	clock.Advance(31 * time.Second)
	beatAndList(t, a)
	if _, err := objs.Get(context.Background(), memberKey("dead:1")); !errors.Is(err, store.ErrObjectNotFound) {
		t.Errorf("a heartbeat silent for 61 s (TTL 4 s): %v, want it deleted", err)
	}
	if v := a.view(); len(v) != 1 || v[0].addr != "a:1" {
		t.Errorf("view after the stale heartbeat went: %+v", v)
	}
}

// While the bucket cannot be listed the members are kept as they were
// and age: they go once their TTL passes, and come back with the bucket.
func TestMembershipBucketOutage(t *testing.T) {
	objs := store.NewMemObjects()
	clock := testutil.NewClock(time.Now())
	a := testMember(t, objs, clock, "a:1", memberQuery)
	b := testMember(t, objs, clock, "b:1", memberQuery)
	beatAndList(t, b)
	beatAndList(t, a)
	wantPeers(t, a, "a:1", "b:1")
	objs.Fail = func(op, key string) error { return errors.New("bucket unreachable") }
	clock.Advance(2 * time.Second)
	if err := a.refresh(context.Background()); err == nil {
		t.Fatal("a listing of an unreachable bucket did not fail")
	}
	wantPeers(t, a, "a:1", "b:1")
	clock.Advance(3 * time.Second)
	wantPeers(t, a) // nobody renewed, itself included
	objs.Fail = nil
	beatAndList(t, b)
	beatAndList(t, a)
	wantPeers(t, a, "a:1", "b:1")
}

// An object under nodes/ that is no heartbeat is reported at the first
// listing that meets it, not at every one, and is read again when it
// changes.
func TestMembershipUnreadableHeartbeat(t *testing.T) {
	objs := store.NewMemObjects()
	clock := testutil.NewClock(time.Now())
	ctx := context.Background()
	if err := objs.Put(ctx, memberPrefix+"junk.json", []byte("not json")); err != nil {
		t.Fatal(err)
	}
	a := testMember(t, objs, clock, "a:1", memberQuery)
	if err := a.beat(ctx); err != nil {
		t.Fatal(err)
	}
	if err := a.refresh(ctx); err == nil || !strings.Contains(err.Error(), "heartbeat nodes/junk.json: not a heartbeat") {
		t.Errorf("first listing: %v, want the object named", err)
	}
	wantPeers(t, a, "a:1")
	if err := a.refresh(ctx); err != nil {
		t.Errorf("second listing reported the same object again: %v", err)
	}
	body, _ := json.Marshal(memberBeat{Addr: "b:1", Role: memberQuery, Beat: clock.Now(), TTLMillis: 4000})
	if err := objs.Put(ctx, memberPrefix+"junk.json", body); err != nil {
		t.Fatal(err)
	}
	if err := a.refresh(ctx); err != nil {
		t.Fatal(err)
	}
	wantPeers(t, a, "a:1", "b:1")
}

// A query node cuts its queries over the static peers and the query
// nodes alive in the bucket, itself once; an ingest node does not use
// the members it lists.
func TestClusterNodesMergesPeersAndMembers(t *testing.T) {
	objs := store.NewMemObjects()
	clock := testutil.NewClock(time.Now())
	for _, addr := range []string{"m1:1", "self:1"} {
		beatAndList(t, testMember(t, objs, clock, addr, memberQuery))
	}
	beatAndList(t, testMember(t, objs, clock, "ingest:1", memberIngest))
	m := testMember(t, objs, clock, "self:1", memberQuery)
	beatAndList(t, m)
	s := &Server{cfg: Config{MetaRole: MetaFollow, Advertise: "self:1", Peers: []string{"p1:1", "self:1"}}, members: m}
	if got, want := s.clusterNodes(), []string{"m1:1", "p1:1", "self:1"}; !slices.Equal(got, want) {
		t.Errorf("query node's nodes %v, want %v", got, want)
	}
	var req db.Request
	s.distribute(&req, "default")
	if req.Distribute == nil || !slices.Equal(req.Distribute.Nodes, []string{"m1:1", "p1:1", "self:1"}) {
		t.Errorf("distribute: %+v", req.Distribute)
	}
	s.cfg.MetaRole, s.cfg.Peers = MetaPublish, nil
	if got := s.clusterNodes(); !slices.Equal(got, []string{"self:1"}) {
		t.Errorf("ingest node's nodes %v, want only itself", got)
	}
}

// A server started with a heartbeat is in the bucket when New returns,
// shows on /metrics what it found there, and is gone from the bucket
// when it closes. A heartbeat without a cluster secret, without a bucket,
// with a TTL no longer than its interval or announcing an address no
// other node can reach (0.0.0.0) is refused, saying why.
func TestServerHeartbeat(t *testing.T) {
	objs := store.NewMemObjects()
	ts := newTestServerConfig(t, Config{Objects: objs, Heartbeat: time.Hour, ClusterSecret: "s", Advertise: "127.0.0.1:7001"})
	if _, err := objs.Get(context.Background(), memberKey("127.0.0.1:7001")); err != nil {
		t.Fatalf("no heartbeat in the bucket after New: %v", err)
	}
	metrics := string(ts.do(req{method: "GET", path: "/metrics"}).body)
	if !strings.Contains(metrics, `aplite_cluster_member{addr="127.0.0.1:7001",role="ingest"} 1`) {
		t.Errorf("/metrics lacks this node as a member:\n%s", metrics)
	}
	if err := ts.s.members.refresh(context.Background()); err != nil {
		t.Fatal(err)
	}

	other, err := New(Config{DataDir: t.TempDir(), DB: db.OpenMemory(db.Options{Isolated: true}), Log: &strings.Builder{},
		Objects: objs, Heartbeat: time.Hour, ClusterSecret: "s", Advertise: "127.0.0.1:7002"})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := objs.Get(context.Background(), memberKey("127.0.0.1:7002")); err != nil {
		t.Fatalf("second node: %v", err)
	}
	other.Close()
	if _, err := objs.Get(context.Background(), memberKey("127.0.0.1:7002")); !errors.Is(err, store.ErrObjectNotFound) {
		t.Errorf("heartbeat after Close: %v, want it deleted", err)
	}

	for cfg, want := range map[*Config]string{
		{Objects: objs, Heartbeat: time.Second}:                                                "need a cluster secret",
		{Heartbeat: time.Second, ClusterSecret: "s"}:                                           "-heartbeat 1s needs -storage s3://BUCKET/PREFIX",
		{Objects: objs, Heartbeat: time.Second, HeartbeatTTL: time.Second, ClusterSecret: "s"}: "-heartbeat-ttl 1s must be longer than -heartbeat 1s",
		{Objects: objs, Heartbeat: time.Second, ClusterSecret: "s", Addr: "0.0.0.0:8080"}:      `this node would announce "0.0.0.0:8080", which other nodes cannot reach; set -advertise`,
		{Objects: objs, Heartbeat: time.Second, ClusterSecret: "s", Advertise: ":8080"}:        `this node would announce ":8080"`,
	} {
		cfg.DataDir, cfg.DB = t.TempDir(), db.OpenMemory(db.Options{Isolated: true})
		if _, err := New(*cfg); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("New(%+v): %v, want %q", *cfg, err, want)
		}
	}
}
