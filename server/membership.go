package server

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"net/url"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/aplite/aplite/db"
)

// Membership through the bucket (issue 28, item 3): a node started with
// Config.Heartbeat writes a small object, nodes/<its address>.json, every
// Heartbeat, and lists nodes/ as often to learn the others. The query
// nodes it finds alive share each query's scan with it, beside any static
// Config.Peers. So a Deployment of query nodes scales without a list of
// addresses: a node is used from the first listing after its first beat,
// and dropped when its object has not changed for its TTL (a crash, a
// SIGSTOP) or at once when it leaves cleanly (it deletes its object).
//
// A reader never compares another node's clock with its own except once:
// when it first sees an object, the beat's own time says whether the node
// was alive lately (an object left by a node long dead is not a member).
// After that the object's listing (its modification time and size, which
// every rewrite changes) is the only signal, timed by the reader's clock.
// A listing costs one LIST; a GET is paid only for an object not seen
// before. Membership never decides an answer's rows: fragments name their
// blocks, so nodes with different views still cut one query correctly,
// and a fragment sent to a node that has gone is run elsewhere
// (core/exec/fragment_run.go).

// memberPrefix is where heartbeats live in the bucket.
const memberPrefix = "nodes/"

// Roles a heartbeat names; only query nodes are sent fragments.
const (
	memberQuery  = "query"
	memberIngest = "ingest"
)

// memberBeat is the body of a heartbeat object.
type memberBeat struct {
	Addr    string    `json:"addr"`
	Role    string    `json:"role"`
	Started time.Time `json:"started"`
	Beat    time.Time `json:"beat"`
	Seq     uint64    `json:"seq"`
	// TTLMillis is how long after its last beat the node counts as gone;
	// each node says its own, so nodes may beat at different rates.
	TTLMillis int64 `json:"ttlMs"`
}

func (b memberBeat) ttl() time.Duration { return time.Duration(b.TTLMillis) * time.Millisecond }

// member is another node's heartbeat as this node last listed it.
type member struct {
	beat memberBeat
	// token is the object's modification time and size at the last
	// listing: a change means the node beat again.
	token string
	// seen is when the node last beat: the beat's own time when it was
	// first listed, then this node's clock when token changed.
	seen time.Time
	// observed is this node's clock when it first listed the object or
	// saw token change: what deciding to delete a silent one goes by, so
	// no other clock can make it delete a live node's heartbeat.
	observed time.Time
}

// membership beats for this node and tracks the others.
type membership struct {
	objs     db.ObjectStore
	now      func() time.Time
	interval time.Duration
	logf     func(format string, args ...any)

	mu      sync.Mutex
	self    memberBeat
	key     string
	members map[string]*member // by object key
	// unreadable holds the token of each object under nodes/ that is no
	// heartbeat, so it is reported once, not at every listing.
	unreadable map[string]string

	stop      chan struct{}
	done      chan struct{}
	closeOnce sync.Once
}

// newMembership makes the membership of the node at addr; now is its
// clock (tests drive it), ttl how long its beat lasts.
func newMembership(objs db.ObjectStore, addr, role string, interval, ttl time.Duration, now func() time.Time, logf func(string, ...any)) *membership {
	return &membership{objs: objs, now: now, interval: interval, logf: logf,
		self: memberBeat{Addr: addr, Role: role, Started: now().UTC(), TTLMillis: ttl.Milliseconds()},
		key:  memberKey(addr), members: map[string]*member{}, unreadable: map[string]string{}}
}

// memberKey is the object a node at addr beats into: one per address, so
// a node restarted where it was takes its old object over.
func memberKey(addr string) string { return memberPrefix + url.PathEscape(addr) + ".json" }

// beat writes this node's heartbeat.
func (m *membership) beat(ctx context.Context) error {
	m.mu.Lock()
	m.self.Seq++
	m.self.Beat = m.now().UTC()
	body, err := json.Marshal(m.self)
	m.mu.Unlock()
	if err != nil {
		return err
	}
	return m.objs.Put(ctx, m.key, body)
}

// refresh lists the heartbeats and updates who is alive. A listing that
// fails changes nothing: the members it would have renewed age, and go
// after their TTL if the bucket stays away.
func (m *membership) refresh(ctx context.Context) error {
	res, err := m.objs.List(ctx, memberPrefix, "")
	if err != nil {
		return err
	}
	now := m.now()
	listed := map[string]bool{}
	var errs []error
	for _, o := range res.Objects {
		if !strings.HasSuffix(o.Key, ".json") {
			continue
		}
		listed[o.Key] = true
		token := fmt.Sprintf("%d/%d", o.Modified.UnixNano(), o.Size)
		m.mu.Lock()
		old := m.members[o.Key]
		if old != nil && old.token != token {
			old.token, old.seen, old.observed = token, now, now
		}
		skip := old != nil || m.unreadable[o.Key] == token
		m.mu.Unlock()
		if skip {
			continue
		}
		nm, err := m.read(ctx, o.Key, token, now)
		if errors.Is(err, db.ErrObjectNotFound) {
			delete(listed, o.Key) // it left between the listing and now
			continue
		}
		m.mu.Lock()
		if err != nil {
			m.unreadable[o.Key] = token
			errs = append(errs, err)
		} else {
			delete(m.unreadable, o.Key)
			m.members[o.Key] = nm
		}
		m.mu.Unlock()
	}
	m.forget(ctx, listed, now)
	return errors.Join(errs...)
}

// read fetches a heartbeat seen for the first time. Its own time tells
// whether it is recent; one in this node's future counts from now.
func (m *membership) read(ctx context.Context, key, token string, now time.Time) (*member, error) {
	body, err := m.objs.Get(ctx, key)
	if err != nil {
		return nil, err
	}
	var b memberBeat
	if err := json.NewDecoder(bytes.NewReader(body)).Decode(&b); err != nil || b.Addr == "" {
		return nil, fmt.Errorf("heartbeat %s: not a heartbeat (%v)", key, err)
	}
	seen := b.Beat
	if seen.After(now) {
		seen = now
	}
	return &member{beat: b, token: token, seen: seen, observed: now}, nil
}

// forget drops the members whose objects are gone (a clean stop) and
// deletes the objects that have not changed for ten times their TTL (and
// at least a minute) of this node's clock, so the prefix does not fill
// with the addresses of pods long replaced. Such a node that comes back
// writes its object again.
func (m *membership) forget(ctx context.Context, listed map[string]bool, now time.Time) {
	var stale []string
	m.mu.Lock()
	for key, mb := range m.members {
		switch {
		case !listed[key]:
			delete(m.members, key)
		case key != m.key && now.Sub(mb.observed) > max(10*mb.beat.ttl(), time.Minute):
			delete(m.members, key)
			stale = append(stale, key)
		}
	}
	m.mu.Unlock()
	for _, key := range stale {
		if err := m.objs.Delete(ctx, key); err != nil {
			m.logf("membership: removing the heartbeat of a node gone long ago, %s: %v", key, err)
		}
	}
}

// alive reports whether mb beat within its TTL of now.
func alive(mb *member, now time.Time) bool { return now.Sub(mb.seen) < mb.beat.ttl() }

// peers returns the addresses of the query nodes alive now, sorted.
func (m *membership) peers() []string {
	now := m.now()
	m.mu.Lock()
	defer m.mu.Unlock()
	var out []string
	for _, mb := range m.members {
		if mb.beat.Role == memberQuery && alive(mb, now) {
			out = append(out, mb.beat.Addr)
		}
	}
	slices.Sort(out)
	return out
}

// memberView is one node as /metrics shows it.
type memberView struct {
	addr, role string
	alive      bool
	// age is how long ago this node saw it beat.
	age time.Duration
}

// view returns every node listed, alive or not yet forgotten, by address.
func (m *membership) view() []memberView {
	now := m.now()
	m.mu.Lock()
	defer m.mu.Unlock()
	out := make([]memberView, 0, len(m.members))
	for _, mb := range m.members {
		out = append(out, memberView{addr: mb.beat.Addr, role: mb.beat.Role, alive: alive(mb, now), age: now.Sub(mb.seen)})
	}
	slices.SortFunc(out, func(a, b memberView) int { return strings.Compare(a.addr, b.addr) })
	return out
}

// start beats and lists once before it returns, so a node is known, and
// knows the others, when it begins to serve; then every interval.
func (m *membership) start() {
	m.tick()
	m.stop, m.done = make(chan struct{}), make(chan struct{})
	go func() {
		defer close(m.done)
		t := time.NewTicker(m.interval)
		defer t.Stop()
		for {
			select {
			case <-m.stop:
				return
			case <-t.C:
				m.tick()
			}
		}
	}()
}

// tick is one beat and one listing, bounded so a bucket that hangs
// cannot hold the loop (ticks missed meanwhile are dropped, not stacked).
func (m *membership) tick() {
	ctx, cancel := context.WithTimeout(context.Background(), max(m.interval, 10*time.Second))
	defer cancel()
	if err := m.beat(ctx); err != nil {
		m.logf("membership: writing this node's heartbeat %s: %v", m.key, err)
	}
	if err := m.refresh(ctx); err != nil {
		m.logf("membership: listing the nodes under %s: %v", memberPrefix, err)
	}
}

// close stops beating and deletes this node's object, so the others drop
// it at their next listing instead of after its TTL.
func (m *membership) close() {
	m.closeOnce.Do(func() {
		if m.stop != nil {
			close(m.stop)
			<-m.done
		}
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		if err := m.objs.Delete(ctx, m.key); err != nil {
			m.logf("membership: removing this node's heartbeat %s: %v", m.key, err)
		}
	})
}

// startMembership beats for this node when Config.Heartbeat asks: as a
// query node when it follows the bucket, as the ingest node when it
// writes there.
func (s *Server) startMembership() {
	if s.cfg.Heartbeat <= 0 || s.cfg.Objects == nil {
		return
	}
	role := memberIngest
	if s.cfg.MetaRole == MetaFollow {
		role = memberQuery
	}
	ttl := s.cfg.HeartbeatTTL
	if ttl <= 0 {
		ttl = 4 * s.cfg.Heartbeat
	}
	logf := func(format string, args ...any) { fmt.Fprintf(s.cfg.Log, "aplite: "+format+"\n", args...) }
	s.members = newMembership(s.cfg.Objects, s.cfg.Advertise, role, s.cfg.Heartbeat, ttl, time.Now, logf)
	s.members.start()
}

// clusterNodes returns the query nodes a query may be cut over: the
// static peers, the query nodes alive in the bucket when this node is
// one, and this node, each once.
func (s *Server) clusterNodes() []string {
	nodes := slices.Clone(s.cfg.Peers)
	if s.members != nil && s.cfg.MetaRole == MetaFollow {
		nodes = append(nodes, s.members.peers()...)
	}
	nodes = append(nodes, s.cfg.Advertise)
	slices.Sort(nodes)
	return slices.Compact(nodes)
}

// writeMembers adds the nodes this one knows from the bucket to /metrics:
// a gauge per node (1 alive, 0 gone but not yet forgotten) and the
// seconds since it last beat.
func (s *Server) writeMembers(b *bytes.Buffer) {
	if s.members == nil {
		return
	}
	vs := s.members.view()
	b.WriteString("# HELP aplite_cluster_member Nodes found through their heartbeats in the bucket: 1 while alive, 0 once silent for their TTL.\n# TYPE aplite_cluster_member gauge\n")
	for _, v := range vs {
		up := 0
		if v.alive {
			up = 1
		}
		fmt.Fprintf(b, "aplite_cluster_member{addr=%q,role=%q} %d\n", v.addr, v.role, up)
	}
	b.WriteString("# HELP aplite_cluster_member_beat_age_seconds Seconds since each node's heartbeat last changed, by this node's clock.\n# TYPE aplite_cluster_member_beat_age_seconds gauge\n")
	for _, v := range vs {
		fmt.Fprintf(b, "aplite_cluster_member_beat_age_seconds{addr=%q,role=%q} %.1f\n", v.addr, v.role, v.age.Seconds())
	}
}

// checkAdvertise refuses a heartbeat that would tell the other nodes an
// address they cannot reach: by default Advertise is Addr, and a node
// listening on 0.0.0.0:8080 (as in a container) would have the others
// send its fragments to themselves.
func checkAdvertise(cfg Config) error {
	if cfg.Heartbeat <= 0 {
		return nil
	}
	addr := cfg.Advertise
	if addr == "" {
		addr = cfg.Addr
	}
	host, _, err := net.SplitHostPort(addr)
	if err != nil {
		return fmt.Errorf("-advertise %q: want host:port (%v)", addr, err)
	}
	if ip := net.ParseIP(host); host == "" || ip != nil && ip.IsUnspecified() {
		return fmt.Errorf("-heartbeat: this node would announce %q, which other nodes cannot reach; set -advertise to its own host:port (in Kubernetes, $(POD_IP):8080)", addr)
	}
	return nil
}
