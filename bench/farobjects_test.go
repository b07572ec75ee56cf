package bench

import (
	"context"
	"time"

	"github.com/aplite/aplite/core/store"
)

// farObjects is the in-memory object store seen across a network: every
// request waits a first-byte latency plus its bytes at a per-request
// bandwidth, and costs no CPU on this machine. It is not an object store
// for tests (SeaweedFS is); it lets BenchmarkIngestObjects tell the
// store's latency, which a flusher that waits on each request pays in
// full, from the store's CPU, which SeaweedFS takes from the cores the
// ingest runs on. The defaults are S3's shape seen from the same region:
// tens of milliseconds to the first byte, about 80 MB/s per request.
type farObjects struct {
	store.ObjectStore
	latency   time.Duration
	bandwidth float64 // bytes per second per request
}

func newFarObjects() *farObjects {
	return &farObjects{ObjectStore: store.NewMemObjects(), latency: 30 * time.Millisecond, bandwidth: 80e6}
}

func (f *farObjects) wait(ctx context.Context, n int) error {
	t := time.NewTimer(f.latency + time.Duration(float64(n)/f.bandwidth*float64(time.Second)))
	defer t.Stop()
	select {
	case <-t.C:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

func (f *farObjects) Put(ctx context.Context, key string, data []byte) error {
	if err := f.wait(ctx, len(data)); err != nil {
		return err
	}
	return f.ObjectStore.Put(ctx, key, data)
}

func (f *farObjects) PutIfAbsent(ctx context.Context, key string, data []byte) error {
	if err := f.wait(ctx, len(data)); err != nil {
		return err
	}
	return f.ObjectStore.PutIfAbsent(ctx, key, data)
}

// GetTag and Swap carry the writer lease (core/store/lease.go) across
// the same distance.
func (f *farObjects) GetTag(ctx context.Context, key string) ([]byte, string, error) {
	b, tag, err := f.ObjectStore.(store.SwapStore).GetTag(ctx, key)
	if werr := f.wait(ctx, len(b)); werr != nil {
		return nil, "", werr
	}
	return b, tag, err
}

func (f *farObjects) Swap(ctx context.Context, key string, data []byte, tag string) (string, error) {
	if err := f.wait(ctx, len(data)); err != nil {
		return "", err
	}
	return f.ObjectStore.(store.SwapStore).Swap(ctx, key, data, tag)
}

func (f *farObjects) Get(ctx context.Context, key string) ([]byte, error) {
	b, err := f.ObjectStore.Get(ctx, key)
	if werr := f.wait(ctx, len(b)); werr != nil {
		return nil, werr
	}
	return b, err
}

func (f *farObjects) GetRange(ctx context.Context, key string, off, n int64) ([]byte, error) {
	b, err := f.ObjectStore.GetRange(ctx, key, off, n)
	if werr := f.wait(ctx, len(b)); werr != nil {
		return nil, werr
	}
	return b, err
}

func (f *farObjects) List(ctx context.Context, prefix, delim string) (store.ListResult, error) {
	if err := f.wait(ctx, 0); err != nil {
		return store.ListResult{}, err
	}
	return f.ObjectStore.List(ctx, prefix, delim)
}
