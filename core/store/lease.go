package store

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sync"
	"time"
)

// leaseKey is the writer lease's object (OBJECTS.md, "The writer lease").
const leaseKey = "writer.lease"

// DefaultLeaseTTL is how long a writer's lease lasts unrenewed.
const DefaultLeaseTTL = 30 * time.Second

// Lease errors; test with errors.Is.
var (
	// ErrLeaseHeld: another live writer holds the slot (OBJECTS.md,
	// "Many writers"), so this node must not write there (it would lose
	// both nodes' events).
	ErrLeaseHeld = errors.New("another writer holds this slot's write lease")
	// ErrLeaseLost: another writer took the lease over while this node
	// was paused or cut off; it writes nothing more.
	ErrLeaseLost = errors.New("this node lost the write lease")
)

// SwapStore is an ObjectStore that can replace an object only if it is
// still the version read (S3's If-Match and If-None-Match on PUT). The
// writer lease needs it: acquiring and renewing must be atomic.
type SwapStore interface {
	ObjectStore
	// GetTag returns the object and its tag (S3: the ETag), or
	// ErrObjectNotFound.
	GetTag(ctx context.Context, key string) ([]byte, string, error)
	// Swap stores data under key if the object's tag is still tag, or,
	// with tag "", if there is no object; it returns the new tag.
	// Otherwise it returns ErrObjectChanged.
	Swap(ctx context.Context, key string, data []byte, tag string) (string, error)
}

// ErrObjectChanged is returned by SwapStore.Swap when the object is not
// the version the caller read.
var ErrObjectChanged = errors.New("object changed since it was read")

// leaseDoc is the lease object as stored.
type leaseDoc struct {
	Holder   string    `json:"holder"`
	Host     string    `json:"host"`
	Pid      int       `json:"pid"`
	Node     string    `json:"node"`
	Token    uint64    `json:"token"`
	TTL      string    `json:"ttl"`
	Acquired time.Time `json:"acquired"`
	Renewed  time.Time `json:"renewed"`
	Expires  time.Time `json:"expires"`
	Released bool      `json:"released,omitempty"`
}

// leaseID says who asks for the lease.
type leaseID struct {
	Host  string
	Pid   int
	Node  string // the data directory's id
	Nonce string // this process's
}

// lease is this node's hold on the prefix's writer lease.
type lease struct {
	objs SwapStore
	key  string // leaseKey, or another lease's (Lease)
	ttl  time.Duration
	now  func() time.Time
	logf func(string, ...any)

	// renewing serialises writes of the lease; mu guards what follows
	// and is never held across a request, so a fence check that finds
	// the lease fresh does not wait for a renewal in flight.
	renewing sync.Mutex
	mu       sync.Mutex
	doc      leaseDoc  // as last written
	tag      string    // of the last write
	renewed  time.Time // when the last successful write started (local clock)
	lost     error     // set once another holder took over

	stop chan struct{}
	done chan struct{}
}

// acquireLease takes the prefix's lease for id, or fails with
// ErrLeaseHeld naming the live holder.
func acquireLease(ctx context.Context, objs ObjectStore, id leaseID, ttl time.Duration, now func() time.Time, logf func(string, ...any)) (*lease, error) {
	return acquireLeaseAt(ctx, objs, leaseKey, id, ttl, now, logf)
}

// acquireLeaseAt is acquireLease for the lease object at key.
func acquireLeaseAt(ctx context.Context, objs ObjectStore, key string, id leaseID, ttl time.Duration, now func() time.Time, logf func(string, ...any)) (*lease, error) {
	sw, ok := objs.(SwapStore)
	if !ok {
		return nil, fmt.Errorf("store: the object store cannot write conditionally, so it cannot hold a writer lease")
	}
	l := &lease{objs: sw, key: key, ttl: ttl, now: now, logf: logf}
	for range 5 {
		old, tag, err := l.read(ctx)
		if err != nil {
			return nil, err
		}
		t := l.now()
		token := uint64(1)
		if old != nil {
			if !old.Released && t.Before(old.Expires) && (old.Host != id.Host || old.Node != id.Node) {
				return nil, heldError(old, t)
			}
			token = old.Token + 1
		}
		doc := leaseDoc{Holder: fmt.Sprintf("%s:%d:%s", id.Host, id.Pid, id.Nonce), Host: id.Host, Pid: id.Pid,
			Node: id.Node, Token: token, TTL: ttl.String(), Acquired: t.UTC()}
		err = l.write(ctx, doc, tag, t)
		if errors.Is(err, ErrObjectChanged) { // another node was quicker: look again
			continue
		}
		if err != nil {
			return nil, fmt.Errorf("store: taking the write lease: %w", err)
		}
		if old != nil && !old.Released {
			l.logf("store: took over the write lease of %s (expired %s) as token %d", old.Holder, old.Expires.Format(time.RFC3339), token)
		}
		return l, nil
	}
	return nil, fmt.Errorf("store: taking the write lease: it kept changing under this node (other writers starting?)")
}

func heldError(d *leaseDoc, now time.Time) error {
	return fmt.Errorf("%w: %s (host %s, pid %d) holds it until %s (in %s); one process per writer slot (the data directory's writer-slot names it; a copied data directory names the same): stop that node, or start this one after the lease expires",
		ErrLeaseHeld, d.Holder, d.Host, d.Pid, d.Expires.UTC().Format(time.RFC3339), d.Expires.Sub(now).Round(time.Second))
}

// read returns the stored lease (nil when there is none) and its tag.
func (l *lease) read(ctx context.Context) (*leaseDoc, string, error) {
	b, tag, err := l.objs.GetTag(ctx, l.key)
	if errors.Is(err, ErrObjectNotFound) {
		return nil, "", nil
	}
	if err != nil {
		return nil, "", fmt.Errorf("store: reading the write lease: %w", err)
	}
	var d leaseDoc
	if err := json.Unmarshal(b, &d); err != nil {
		return nil, "", fmt.Errorf("store: the write lease %s is not valid JSON: %w", l.key, err)
	}
	return &d, tag, nil
}

// write stores doc renewed at t (on top of the version tagged tag) and
// makes it this node's on success.
func (l *lease) write(ctx context.Context, doc leaseDoc, tag string, t time.Time) error {
	doc.Renewed = t.UTC()
	doc.Expires = t.Add(l.ttl).UTC()
	b, err := json.Marshal(&doc)
	if err != nil {
		return err
	}
	nt, err := l.objs.Swap(ctx, l.key, b, tag)
	if err != nil {
		return err
	}
	l.mu.Lock()
	l.doc, l.tag, l.renewed = doc, nt, t
	l.mu.Unlock()
	return nil
}

// state is the lease as last written, and whether it was lost.
func (l *lease) state() (doc leaseDoc, tag string, renewed time.Time, lost error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.doc, l.tag, l.renewed, l.lost
}

// token is the fencing token written into every catalog version.
func (l *lease) token() uint64 {
	if l == nil {
		return 0
	}
	doc, _, _, _ := l.state()
	return doc.Token
}

// renew extends the lease; it finds out when another node took it.
func (l *lease) renew(ctx context.Context) error {
	l.renewing.Lock()
	defer l.renewing.Unlock()
	doc, tag, _, lost := l.state()
	if lost != nil {
		return lost
	}
	t := l.now()
	err := l.write(ctx, doc, tag, t)
	if !errors.Is(err, ErrObjectChanged) {
		return err
	}
	cur, curTag, rerr := l.read(ctx)
	if rerr != nil {
		return rerr
	}
	if cur != nil && cur.Holder == doc.Holder && cur.Token == doc.Token && !cur.Released {
		// Our own write whose answer was lost: carry on from it.
		return l.write(ctx, doc, curTag, t)
	}
	holder := "nobody (the lease was deleted)"
	if cur != nil {
		holder = fmt.Sprintf("%s (token %d)", cur.Holder, cur.Token)
	}
	err = fmt.Errorf("%w to %s; it accepts no more writes to this slot", ErrLeaseLost, holder)
	l.mu.Lock()
	l.lost = err
	l.mu.Unlock()
	l.logf("store: %v", err)
	return err
}

// check is the fence before a commit or a deletion: nil only while the
// lease is certainly this node's. A renewal less than TTL/2 ago makes it
// free; a later one (the process was paused, or the store unreachable)
// is renewed first.
func (l *lease) check() error { return l.fence(l.ttl / 2) }

// checkAppend is the fence before an append, which only reaches the
// local WAL: it renews only once the lease may have expired, so a short
// outage of the store costs appends nothing, and a node that may have
// been taken over acknowledges nothing.
func (l *lease) checkAppend() error { return l.fence(l.ttl) }

// fence is nil if the lease was renewed less than margin ago or can be
// renewed now.
func (l *lease) fence(margin time.Duration) error {
	if l == nil {
		return nil
	}
	_, _, renewed, lost := l.state()
	if lost != nil {
		return lost
	}
	if l.now().Sub(renewed) < margin {
		return nil
	}
	ctx, cancel := context.WithTimeout(context.Background(), l.ttl/2)
	defer cancel()
	l.renewing.Lock()
	_, _, renewed, _ = l.state()
	fresh := l.now().Sub(renewed) < margin // renewed while this waited
	l.renewing.Unlock()
	if fresh {
		return nil
	}
	err := l.renew(ctx)
	switch {
	case err == nil || errors.Is(err, ErrLeaseLost):
		return err
	case l.now().Sub(renewed) >= l.ttl: // expired: another node may hold it now
		return fmt.Errorf("%w: it expired %s ago and could not be renewed, so nothing is written: %w",
			ErrLeaseLost, (l.now().Sub(renewed) - l.ttl).Round(time.Millisecond), err)
	}
	return fmt.Errorf("store: the write lease could not be renewed (last renewed %s ago), so nothing is written: %w",
		l.now().Sub(renewed).Round(time.Millisecond), err)
}

// releaseLease releases the DB's lease when it closes.
func (db *DB) releaseLease() error {
	ctx, cancel := context.WithTimeout(context.Background(), db.opts.LeaseTTL)
	defer cancel()
	return db.lease.release(ctx)
}

// keep renews the lease every TTL/3 until release, and at once if the
// acquiring write itself was slow (a store busy at start).
func (l *lease) keep() {
	l.stop, l.done = make(chan struct{}), make(chan struct{})
	_, _, renewed, _ := l.state()
	late := l.now().Sub(renewed) >= l.ttl/3
	go func() {
		defer close(l.done)
		tick := time.NewTicker(l.ttl / 3)
		defer tick.Stop()
		for {
			if !late {
				select {
				case <-l.stop:
					return
				case <-tick.C:
				}
			}
			late = false
			ctx, cancel := context.WithTimeout(context.Background(), l.ttl/2)
			err := l.renew(ctx)
			cancel()
			if errors.Is(err, ErrLeaseLost) {
				return
			}
			if err != nil {
				l.logf("store: renewing the write lease: %v", err)
			}
		}
	}()
}

// release stops renewing and marks the lease released, so the next
// writer starts at once; a lost lease is left to its new holder.
func (l *lease) release(ctx context.Context) error {
	if l.stop != nil {
		close(l.stop)
		<-l.done
	}
	l.renewing.Lock()
	defer l.renewing.Unlock()
	doc, tag, _, lost := l.state()
	if lost != nil {
		return nil
	}
	t := l.now().UTC()
	doc.Released, doc.Renewed, doc.Expires = true, t, t
	b, err := json.Marshal(&doc)
	if err != nil {
		return err
	}
	if _, err := l.objs.Swap(ctx, l.key, b, tag); err != nil {
		return fmt.Errorf("store: releasing the write lease: %w", err)
	}
	l.mu.Lock()
	l.lost = fmt.Errorf("%w: it was released when the store closed", ErrLeaseLost)
	l.mu.Unlock()
	return nil
}
