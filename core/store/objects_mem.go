package store

import (
	"context"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"
)

// MemObjects is an ObjectStore held in memory, for unit tests and for
// running the object-storage code paths without a server. It counts
// requests so tests can check how many a query makes. Fail, when set, is
// called before every operation and its error returned: tests inject
// outages with it.
type MemObjects struct {
	mu      sync.Mutex
	objs    map[string]memObject
	Gets    int64 // Get and GetRange calls that found their object
	GetByte int64 // bytes returned by them
	Puts    int64
	Fail    func(op, key string) error
	tags    uint64 // the last tag given
}

type memObject struct {
	data []byte
	mod  time.Time
	tag  uint64 // for SwapStore: a new one per write
}

// NewMemObjects returns an empty in-memory object store.
func NewMemObjects() *MemObjects { return &MemObjects{objs: map[string]memObject{}} }

func (m *MemObjects) fail(op, key string) error {
	if m.Fail != nil {
		return m.Fail(op, key)
	}
	return nil
}

// Put implements ObjectStore.
func (m *MemObjects) Put(_ context.Context, key string, data []byte) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	if err := m.fail("put", key); err != nil {
		return err
	}
	m.put(key, data)
	return nil
}

func (m *MemObjects) put(key string, data []byte) string {
	m.tags++
	m.objs[key] = memObject{data: slices.Clone(data), mod: time.Now(), tag: m.tags}
	m.Puts++
	return strconv.FormatUint(m.tags, 10)
}

// GetTag implements SwapStore.
func (m *MemObjects) GetTag(_ context.Context, key string) ([]byte, string, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if err := m.fail("get", key); err != nil {
		return nil, "", err
	}
	o, ok := m.objs[key]
	if !ok {
		return nil, "", fmt.Errorf("%w: %s", ErrObjectNotFound, key)
	}
	return slices.Clone(o.data), strconv.FormatUint(o.tag, 10), nil
}

// Swap implements SwapStore.
func (m *MemObjects) Swap(_ context.Context, key string, data []byte, tag string) (string, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if err := m.fail("put", key); err != nil {
		return "", err
	}
	o, ok := m.objs[key]
	if ok != (tag != "") || ok && strconv.FormatUint(o.tag, 10) != tag {
		return "", fmt.Errorf("%w: %s", ErrObjectChanged, key)
	}
	return m.put(key, data), nil
}

// PutIfAbsent implements ObjectStore.
func (m *MemObjects) PutIfAbsent(ctx context.Context, key string, data []byte) error {
	m.mu.Lock()
	_, ok := m.objs[key]
	m.mu.Unlock()
	if ok {
		return fmt.Errorf("%w: %s", ErrObjectExists, key)
	}
	return m.Put(ctx, key, data)
}

// Get implements ObjectStore.
func (m *MemObjects) Get(ctx context.Context, key string) ([]byte, error) {
	return m.GetRange(ctx, key, 0, -1)
}

// GetRange implements ObjectStore; n < 0 reads to the end.
func (m *MemObjects) GetRange(_ context.Context, key string, off, n int64) ([]byte, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if err := m.fail("get", key); err != nil {
		return nil, err
	}
	o, ok := m.objs[key]
	if !ok {
		return nil, fmt.Errorf("%w: %s", ErrObjectNotFound, key)
	}
	if n < 0 {
		n = int64(len(o.data)) - off
	}
	if off < 0 || off+n > int64(len(o.data)) {
		return nil, fmt.Errorf("range [%d, %d) outside %s of %d bytes", off, off+n, key, len(o.data))
	}
	m.Gets++
	m.GetByte += n
	return slices.Clone(o.data[off : off+n]), nil
}

// Delete implements ObjectStore.
func (m *MemObjects) Delete(_ context.Context, key string) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	if err := m.fail("delete", key); err != nil {
		return err
	}
	delete(m.objs, key)
	return nil
}

// List implements ObjectStore.
func (m *MemObjects) List(_ context.Context, prefix, delim string) (ListResult, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if err := m.fail("list", prefix); err != nil {
		return ListResult{}, err
	}
	var res ListResult
	seen := map[string]bool{}
	for k, o := range m.objs {
		rest, ok := strings.CutPrefix(k, prefix)
		if !ok {
			continue
		}
		if delim != "" {
			if i := strings.Index(rest, delim); i >= 0 {
				p := prefix + rest[:i+len(delim)]
				if !seen[p] {
					seen[p] = true
					res.Prefixes = append(res.Prefixes, p)
				}
				continue
			}
		}
		res.Objects = append(res.Objects, ObjectInfo{Key: k, Size: int64(len(o.data)), Modified: o.mod})
	}
	slices.Sort(res.Prefixes)
	slices.SortFunc(res.Objects, func(a, b ObjectInfo) int { return strings.Compare(a.Key, b.Key) })
	return res, nil
}

// Keys returns every stored key, sorted (tests).
func (m *MemObjects) Keys() []string {
	m.mu.Lock()
	defer m.mu.Unlock()
	out := make([]string, 0, len(m.objs))
	for k := range m.objs {
		out = append(out, k)
	}
	slices.Sort(out)
	return out
}
