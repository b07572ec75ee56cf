package objstore

import "sync/atomic"

// Stats counts requests to the bucket and cache hits, for /metrics and
// the benchmarks (GETs and bytes fetched per query).
type Stats struct {
	Gets, GetBytes atomic.Int64
	Puts, PutBytes atomic.Int64
	Lists          atomic.Int64
	MemHits        atomic.Int64
	DiskHits       atomic.Int64
}

// Snapshot returns the counters as plain numbers.
func (s *Stats) Snapshot() map[string]int64 {
	return map[string]int64{
		"gets": s.Gets.Load(), "get_bytes": s.GetBytes.Load(),
		"puts": s.Puts.Load(), "put_bytes": s.PutBytes.Load(), "lists": s.Lists.Load(),
		"mem_hits": s.MemHits.Load(), "disk_hits": s.DiskHits.Load(),
	}
}
