package store

import (
	"errors"
	"fmt"
	"slices"
	"sync"
	"time"
)

// Defaults for zero Options fields.
const (
	defaultFlushRows       = 262144
	defaultSealRows        = 65536
	defaultFlushInterval   = 10 * time.Second
	defaultCompactInterval = 2 * time.Second
)

// DB is a set of datasets, on disk (Open) or in memory (OpenMemory). All
// methods are safe for concurrent use.
type DB struct {
	opts Options
	dir  string // "" in memory mode
	// newFiles creates the durable storage of a new dataset; nil in
	// memory mode.
	newFiles func(name string, created time.Time) (dsFiles, error)

	unlock func() // releases the data directory lock; nil in memory mode

	mu     sync.Mutex
	sets   map[string]*Dataset
	closed bool

	// readOnly marks a DB opened with OpenRemote; stopRefresh ends its
	// catalog refresh loop.
	readOnly    bool
	stopRefresh chan struct{}

	// lease is the writer lease of a DB on object storage (nil
	// otherwise): appends and commits check it (OBJECTS.md).
	lease *lease
	// slot is the writer's slot on object storage and slotObjs the
	// bucket as the slot sees it (nil otherwise; OBJECTS.md, "Many
	// writers").
	slot     string
	slotObjs ObjectStore
	// regCache keeps the registry entries read, so a refresh reads
	// only those whose object changed.
	regCache regCache
	// tailSlots are the slots a read-only DB polls the tails of (the
	// last Refresh's listing); tails publishes a writer's (OBJECTS.md,
	// "Tails"; nil when it does not).
	tailSlots []string
	tails     *tailPublisher

	// queries counts the running queries, for which compaction steps
	// aside (querygate.go).
	queries queryGate
}

// WriteFence is nil while this DB may write to its object store: always
// for a DB without a writer lease (local, or read-only), else while the
// lease is certainly its own (OBJECTS.md, "The writer lease"). Whoever
// else writes to the bucket for this node (the server's metadata) checks
// it first, so a node that lost the lease writes nothing there.
func (db *DB) WriteFence() error {
	if db.lease == nil {
		return nil
	}
	return db.lease.check()
}

// fence is nil while this DB may append: always, unless it holds a
// writer lease that is lost, or expired and cannot be renewed.
func (db *DB) fence() error {
	if db.lease == nil {
		return nil
	}
	return db.lease.checkAppend()
}

// ReadOnly reports whether the DB only reads what another node publishes
// (OpenRemote).
func (db *DB) ReadOnly() bool { return db.readOnly }

func (o Options) withDefaults() Options {
	if o.FlushRows <= 0 {
		o.FlushRows = defaultFlushRows
	}
	if o.FlushInterval <= 0 {
		o.FlushInterval = defaultFlushInterval
	}
	if o.SealRows <= 0 {
		o.SealRows = defaultSealRows
	}
	o.SealRows = min(o.SealRows, o.FlushRows)
	if o.CompactInterval <= 0 {
		o.CompactInterval = defaultCompactInterval
	}
	if o.IdleFlush <= 0 {
		o.IdleFlush = 2 * time.Second
	}
	if o.CompactIdle <= 0 {
		o.CompactIdle = 3 * time.Second
	}
	if o.CompactAge <= 0 {
		o.CompactAge = 30 * time.Second
	}
	if o.Grace <= 0 {
		o.Grace = 10 * time.Minute
	}
	if o.Refresh <= 0 {
		o.Refresh = 2 * time.Second
	}
	if o.LeaseTTL <= 0 {
		o.LeaseTTL = DefaultLeaseTTL
	}
	if o.Now == nil {
		o.Now = time.Now
	}
	if o.leaseNow == nil {
		o.leaseNow = o.Now
	}
	if o.Logf == nil {
		o.Logf = func(string, ...any) {}
	}
	return o
}

// OpenMemory returns a DB that keeps everything in memory: no WAL, blocks
// on the heap. It serves `aplite query -in`, tests and WASM.
func OpenMemory(opts Options) *DB {
	return &DB{opts: opts.withDefaults(), sets: make(map[string]*Dataset)}
}

// MaxNameLen is the longest dataset name the store keeps. The API allows
// 80 characters; the rest is room for the server's prefix that keeps the
// datasets of other organizations apart (server/storage_org.go).
const MaxNameLen = 128

// ValidateName checks a dataset name: 1 to MaxNameLen characters of
// [a-zA-Z0-9._-] that neither start nor end with '.', '_' or '-'.
func ValidateName(name string) error {
	if name == "" || len(name) > MaxNameLen {
		return fmt.Errorf("invalid dataset name %q: must be 1 to %d characters long", name, MaxNameLen)
	}
	for i := 0; i < len(name); i++ {
		c := name[i]
		alnum := c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9'
		if !alnum && c != '.' && c != '_' && c != '-' {
			return fmt.Errorf("invalid dataset name %q: only letters, digits, '.', '_' and '-' are allowed", name)
		}
		if !alnum && (i == 0 || i == len(name)-1) {
			return fmt.Errorf("invalid dataset name %q: must start and end with a letter or digit", name)
		}
	}
	return nil
}

// Create makes a new, empty dataset.
func (db *DB) Create(name string) (*Dataset, error) {
	if err := ValidateName(name); err != nil {
		return nil, err
	}
	if db.readOnly {
		return nil, ErrReadOnly
	}
	db.mu.Lock()
	defer db.mu.Unlock()
	if db.closed {
		return nil, ErrClosed
	}
	if _, ok := db.sets[name]; ok {
		return nil, fmt.Errorf("%w: %s", ErrExists, name)
	}
	created := time.Now().UTC()
	var files dsFiles
	if db.newFiles != nil {
		var err error
		if files, err = db.newFiles(name, created); err != nil {
			return nil, err
		}
	}
	d := newDataset(db, name, created, files, &recovered{nextSeq: 1, nextBlock: 1})
	db.sets[name] = d
	return d, nil
}

// Get returns the named dataset. A writer among many joins a dataset
// another node created, so an append may come to any of them.
func (db *DB) Get(name string) (*Dataset, error) {
	d, err := db.get(name)
	if errors.Is(err, ErrNotFound) && db.slotObjs != nil && ValidateName(name) == nil {
		if jerr := db.joinNamed(name); jerr == nil {
			return db.get(name)
		}
	}
	return d, err
}

func (db *DB) get(name string) (*Dataset, error) {
	db.mu.Lock()
	defer db.mu.Unlock()
	if db.closed {
		return nil, ErrClosed
	}
	d, ok := db.sets[name]
	if !ok {
		return nil, fmt.Errorf("%w: %s", ErrNotFound, name)
	}
	return d, nil
}

// List returns every dataset, sorted by name.
func (db *DB) List() []*Dataset {
	db.mu.Lock()
	defer db.mu.Unlock()
	out := make([]*Dataset, 0, len(db.sets))
	for _, d := range db.sets {
		out = append(out, d)
	}
	slices.SortFunc(out, func(a, b *Dataset) int {
		switch {
		case a.name < b.name:
			return -1
		case a.name > b.name:
			return 1
		}
		return 0
	})
	return out
}

// Delete removes a dataset and its files. Appends in flight fail with
// ErrClosed; snapshots taken before stay readable until released.
func (db *DB) Delete(name string) error {
	if db.readOnly {
		return ErrReadOnly
	}
	db.mu.Lock()
	d, ok := db.sets[name]
	if ok {
		delete(db.sets, name)
	}
	db.mu.Unlock()
	if !ok {
		return fmt.Errorf("%w: %s", ErrNotFound, name)
	}
	d.shutdown(false)
	if d.files != nil {
		return d.files.destroy()
	}
	return nil
}

// Close flushes every buffer into blocks and stops background work. The
// DB and its datasets are unusable afterwards.
func (db *DB) Close() error {
	db.mu.Lock()
	if db.closed {
		db.mu.Unlock()
		return nil
	}
	db.closed = true
	if db.stopRefresh != nil {
		close(db.stopRefresh)
	}
	sets := make([]*Dataset, 0, len(db.sets))
	for _, d := range db.sets {
		sets = append(sets, d)
	}
	db.mu.Unlock()
	var first error
	for _, d := range sets {
		if err := d.shutdown(true); err != nil && first == nil {
			first = err
		}
	}
	if db.lease != nil {
		if err := db.releaseLease(); err != nil && first == nil {
			first = err
		}
	}
	if db.unlock != nil {
		db.unlock()
	}
	return first
}
