package store

import (
	"context"
	"time"
)

// Lease is a lease object in the bucket that one process holds at a
// time, with the writer lease's rules (OBJECTS.md, "The writer lease"):
// a fencing token, renewal every TTL/3, release on Close. The server
// elects the node that publishes the cluster's metadata with one.
type Lease struct{ l *lease }

// TakeLease acquires the lease at key for this process and keeps
// renewing it; it fails with ErrLeaseHeld, naming the holder, while
// another process holds it. host and pid name this process in the lease;
// node, when not empty, names its data directory (whose lock the caller
// holds), so a lease left by a dead process on the same host and
// directory is taken over at once, as the writer lease is.
func TakeLease(ctx context.Context, objs ObjectStore, key, host, node string, pid int, ttl time.Duration, logf func(string, ...any)) (*Lease, error) {
	if ttl <= 0 {
		ttl = DefaultLeaseTTL
	}
	if logf == nil {
		logf = func(string, ...any) {}
	}
	if node == "" {
		node = nonce()
	}
	id := leaseID{Host: host, Pid: pid, Node: node, Nonce: nonce()}
	l, err := acquireLeaseAt(ctx, objs, key, id, ttl, time.Now, logf)
	if err != nil {
		return nil, err
	}
	l.keep()
	return &Lease{l}, nil
}

// Check is nil while the lease is certainly this process's: the fence
// before a write only the holder may make.
func (l *Lease) Check() error { return l.l.check() }

// Release stops renewing and marks the lease released, so another
// process takes it at once.
func (l *Lease) Release(ctx context.Context) error { return l.l.release(ctx) }
