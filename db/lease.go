package db

import "github.com/aplite/aplite/core/store"

// Lease is a lease in the bucket one process holds at a time
// (core/store/OBJECTS.md, "The writer lease"): the server elects the
// node that publishes the cluster's metadata with one.
type Lease = store.Lease

// TakeLease acquires the lease object at key and keeps renewing it; it
// fails with ErrLeaseHeld while another process holds it.
var TakeLease = store.TakeLease

// ErrLeaseHeld: another live process holds the lease.
var ErrLeaseHeld = store.ErrLeaseHeld
