package server

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/aplite/aplite/db"
	"github.com/aplite/aplite/server/meta"
)

// Metadata in a cluster (issue 10, item 4): the node that owns the
// datasets (role all or ingest with object storage) publishes its whole
// metadata file to the bucket after every change, as numbered versions
// under meta/; query nodes start from the newest and reload it when a
// newer one appears, read-only. So tokens, datasets' settings, virtual
// fields, starred queries and monitors are the same on every node, and
// so is every auth decision, a refresh interval after the change.

// Metadata roles.
const (
	MetaLocal   = ""        // no replication (a single node)
	MetaPublish = "publish" // writes go here and are published
	MetaFollow  = "follow"  // a read-only copy of the publisher's
)

const metaPrefix = "meta/"

// keepMetaVersions is how many published versions stay in the bucket: a
// follower that listed one a moment ago can still read it.
const keepMetaVersions = 4

// metaSync moves the metadata file between this node and the bucket.
type metaSync struct {
	s       *Server
	lease   atomic.Pointer[db.Lease] // the publisher's; nil while following
	objs    db.ObjectStore
	version uint64 // newest version published or loaded
	kick    chan struct{}
	stop    chan struct{}
	done    sync.WaitGroup
}

func metaKey(v uint64) string { return fmt.Sprintf("%s%020d.db", metaPrefix, v) }

// metaVersions lists the published versions, ascending.
func metaVersions(ctx context.Context, objs db.ObjectStore) ([]uint64, error) {
	res, err := objs.List(ctx, metaPrefix, "")
	if err != nil {
		return nil, err
	}
	var vs []uint64
	for _, o := range res.Objects {
		name, ok := strings.CutSuffix(strings.TrimPrefix(o.Key, metaPrefix), ".db")
		if v, err := strconv.ParseUint(name, 10, 64); ok && err == nil {
			vs = append(vs, v)
		}
	}
	return vs, nil
}

// fetchMetaFile writes the newest published metadata into dir before the
// store opens it (a follower's start); it returns the version, 0 if none.
func fetchMetaFile(objs db.ObjectStore, dir string) (uint64, error) {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	vs, err := metaVersions(ctx, objs)
	if err != nil || len(vs) == 0 {
		return 0, err
	}
	v := vs[len(vs)-1]
	b, err := objs.Get(ctx, metaKey(v))
	if err != nil {
		return 0, err
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return 0, err
	}
	path := filepath.Join(dir, meta.FileName)
	if err := os.WriteFile(path+".incoming", b, 0o600); err != nil {
		return 0, err
	}
	return v, os.Rename(path+".incoming", path)
}

// metaLeaseKey is the lease of the node that publishes: with many ingest
// nodes on one prefix (core/store/OBJECTS.md, "Many writers") one of
// them publishes at a time and the others follow, read-only, until its
// lease lapses; then one of them takes over.
const metaLeaseKey = metaPrefix + "publisher.lease"

// startMetaSync runs the publisher or the follower loop.
func (s *Server) startMetaSync(loaded uint64) error {
	if s.cfg.MetaRole == MetaLocal || s.cfg.Objects == nil {
		return nil
	}
	m := &metaSync{s: s, objs: s.cfg.Objects, version: loaded, kick: make(chan struct{}, 1), stop: make(chan struct{})}
	s.metaSync = m
	m.done.Add(1)
	if s.cfg.MetaRole == MetaFollow {
		s.meta.SetReadOnly(true)
		go m.follow()
		return nil
	}
	s.meta.OnCommit(func() {
		select {
		case m.kick <- struct{}{}:
		default:
		}
	})
	err := m.takeOver()
	if errors.Is(err, db.ErrLeaseHeld) {
		s.meta.SetReadOnly(true)
		go m.standby()
		return nil
	}
	if err != nil {
		m.done.Done()
		return err
	}
	go m.publishLoop()
	return nil
}

// takeOver takes the publisher's lease and publishes from the newest
// version in the bucket (loaded first: another node published it).
func (m *metaSync) takeOver() error {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	host, _ := os.Hostname()
	// The store's id of the data directory, whose lock this process
	// holds: a restart after a crash takes its own lease over at once.
	node, _ := os.ReadFile(filepath.Join(m.s.cfg.DataDir, "writer-id"))
	l, err := db.TakeLease(ctx, m.objs, metaLeaseKey, host, strings.TrimSpace(string(node)), os.Getpid(), m.s.cfg.StoreOptions.LeaseTTL, nil)
	if err != nil {
		return err
	}
	vs, err := metaVersions(ctx, m.objs)
	if err == nil && len(vs) > 0 && vs[len(vs)-1] > m.version {
		err = m.pull()
	}
	if err != nil {
		_ = l.Release(ctx)
		return fmt.Errorf("metadata in the bucket: %w", err)
	}
	m.lease.Store(l)
	m.s.meta.SetReadOnly(false)
	if err := m.publish(); err != nil {
		return fmt.Errorf("publishing metadata: %w", err)
	}
	return nil
}

// standby follows the publisher and takes its place once its lease
// lapses.
func (m *metaSync) standby() {
	t := time.NewTicker(m.s.cfg.MetaRefresh)
	defer t.Stop()
	for {
		select {
		case <-m.stop:
			m.done.Done()
			return
		case <-t.C:
		}
		if err := m.pull(); err != nil {
			fmt.Fprintf(m.s.cfg.Log, "aplite: loading published metadata: %v\n", err)
		}
		err := m.takeOver()
		if err == nil {
			fmt.Fprintf(m.s.cfg.Log, "aplite: this node now publishes the cluster's metadata\n")
			m.publishLoop()
			return
		}
		if !errors.Is(err, db.ErrLeaseHeld) {
			fmt.Fprintf(m.s.cfg.Log, "aplite: taking over the metadata: %v\n", err)
		}
	}
}

// publish uploads the current metadata as the next version and drops old
// versions.
func (m *metaSync) publish() error {
	if d := m.s.cfg.DB; d != nil { // a writer that lost its lease publishes nothing
		if err := d.WriteFence(); err != nil {
			return err
		}
	}
	if l := m.lease.Load(); l != nil {
		if err := l.Check(); err != nil {
			return err
		}
	}
	snap, err := m.s.meta.Snapshot()
	if err != nil {
		return err
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	next := m.version + 1
	if err := m.objs.PutIfAbsent(ctx, metaKey(next), snap); err != nil {
		return err
	}
	m.version = next
	if vs, err := metaVersions(ctx, m.objs); err == nil {
		for i := 0; i+keepMetaVersions < len(vs); i++ {
			_ = m.objs.Delete(ctx, metaKey(vs[i]))
		}
	}
	return nil
}

// publishLoop publishes after changes, at most every 100 ms (a burst of
// writes becomes one version); a failure is retried with the next change
// or after a second.
func (m *metaSync) publishLoop() {
	defer m.done.Done()
	retry := time.NewTicker(time.Second)
	defer retry.Stop()
	dirty := false
	for {
		select {
		case <-m.stop:
			if dirty {
				_ = m.publish()
			}
			return
		case <-m.kick:
			dirty = true
			time.Sleep(100 * time.Millisecond)
		case <-retry.C:
		}
		if dirty {
			err := m.publish()
			if errors.Is(err, db.ErrLeaseLost) && (m.s.cfg.DB == nil || m.s.cfg.DB.WriteFence() == nil) {
				// Another node publishes now: follow it.
				fmt.Fprintf(m.s.cfg.Log, "aplite: no longer publishing the cluster's metadata: %v\n", err)
				m.s.meta.SetReadOnly(true)
				m.lease.Store(nil)
				m.standbyAfterLoss()
				return
			}
			if err != nil {
				fmt.Fprintf(m.s.cfg.Log, "aplite: publishing metadata (will retry): %v\n", err)
				continue
			}
			dirty = false
		}
	}
}

// follow loads newer published versions every refresh interval.
func (m *metaSync) follow() {
	defer m.done.Done()
	t := time.NewTicker(m.s.cfg.MetaRefresh)
	defer t.Stop()
	for {
		select {
		case <-m.stop:
			return
		case <-t.C:
		}
		if err := m.pull(); err != nil {
			fmt.Fprintf(m.s.cfg.Log, "aplite: loading published metadata: %v\n", err)
		}
	}
}

func (m *metaSync) pull() error {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	vs, err := metaVersions(ctx, m.objs)
	if err != nil || len(vs) == 0 || vs[len(vs)-1] <= m.version {
		return err
	}
	v := vs[len(vs)-1]
	b, err := m.objs.Get(ctx, metaKey(v))
	if err != nil {
		return err
	}
	if err := m.s.meta.Replace(b); err != nil {
		return err
	}
	m.version = v
	m.s.forgetMetaCaches()
	return nil
}

// metaWritable is nil unless this is an ingest node that follows the
// metadata another ingest node publishes: a change that must reach the
// metadata (a dataset created or deleted) is refused before it touches
// the store, not halfway.
func (s *Server) metaWritable() error {
	m := s.metaSync
	if m == nil || s.cfg.MetaRole != MetaPublish || m.lease.Load() != nil {
		return nil
	}
	return &apiError{Status: http.StatusServiceUnavailable, Headers: [][2]string{{"Retry-After", "5"}},
		Message: "this ingest node follows the metadata another ingest node publishes (the holder of meta/publisher.lease in the bucket): send dataset changes to that node, or retry once it is gone"}
}

// standbyAfterLoss is standby for a publisher that lost its lease; the
// done count it holds passes on.
func (m *metaSync) standbyAfterLoss() { m.done.Add(1); go m.standby() }

func (m *metaSync) close() {
	close(m.stop)
	m.done.Wait()
	if l := m.lease.Load(); l != nil {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		_ = l.Release(ctx)
	}
}

// forgetMetaCaches drops what the server cached from the metadata.
func (s *Server) forgetMetaCaches() {
	s.tokens.clear()
	s.orgs.mu.Lock()
	s.orgs.orgs = nil
	s.orgs.mu.Unlock()
	s.dsets.mu.Lock()
	s.dsets.m = nil
	s.dsets.mu.Unlock()
}
