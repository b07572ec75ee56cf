package store

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"sync"
	"time"
)

// Many writers on one prefix (OBJECTS.md, "Many writers"): each writer
// owns a slot, a sub-prefix with its own catalogs, blocks and lease, and
// the registry names the datasets every slot shares.

// legacySlot is the slot whose prefix is the bucket prefix itself: the
// layout a single writer wrote before slots.
const legacySlot = "0"

const (
	slotsPrefix    = "writers/"
	registryPrefix = "registry/"
	// registryMark is written by every writer that knows slots, so a
	// registry emptied by deletes is not taken for a prefix an earlier
	// aplite wrote (whose slot 0 datasets would come back).
	registryMark = registryPrefix + ".slots"
)

// slotPrefix is where a slot's keys live, relative to the bucket prefix.
func slotPrefix(slot string) string {
	if slot == legacySlot {
		return ""
	}
	return slotsPrefix + slot + "/"
}

// prefixObjects is an ObjectStore seen from below a prefix: a slot's
// catalogs, blocks and lease use the single-writer code unchanged.
type prefixObjects struct {
	ObjectStore
	prefix string
}

// slotObjects returns objs as seen by a slot's writer.
func slotObjects(objs ObjectStore, slot string) ObjectStore {
	p := slotPrefix(slot)
	if p == "" {
		return objs
	}
	return prefixObjects{objs, p}
}

func (p prefixObjects) Put(ctx context.Context, key string, data []byte) error {
	return p.ObjectStore.Put(ctx, p.prefix+key, data)
}

func (p prefixObjects) PutIfAbsent(ctx context.Context, key string, data []byte) error {
	return p.ObjectStore.PutIfAbsent(ctx, p.prefix+key, data)
}

func (p prefixObjects) Get(ctx context.Context, key string) ([]byte, error) {
	return p.ObjectStore.Get(ctx, p.prefix+key)
}

func (p prefixObjects) GetRange(ctx context.Context, key string, off, n int64) ([]byte, error) {
	return p.ObjectStore.GetRange(ctx, p.prefix+key, off, n)
}

func (p prefixObjects) Delete(ctx context.Context, key string) error {
	return p.ObjectStore.Delete(ctx, p.prefix+key)
}

func (p prefixObjects) List(ctx context.Context, prefix, delim string) (ListResult, error) {
	res, err := p.ObjectStore.List(ctx, p.prefix+prefix, delim)
	for i := range res.Objects {
		res.Objects[i].Key = strings.TrimPrefix(res.Objects[i].Key, p.prefix)
	}
	for i := range res.Prefixes {
		res.Prefixes[i] = strings.TrimPrefix(res.Prefixes[i], p.prefix)
	}
	return res, err
}

// GetTag implements SwapStore when the store below does (the lease).
func (p prefixObjects) GetTag(ctx context.Context, key string) ([]byte, string, error) {
	sw, ok := p.ObjectStore.(SwapStore)
	if !ok {
		return nil, "", errNoSwap
	}
	return sw.GetTag(ctx, p.prefix+key)
}

// Swap implements SwapStore when the store below does.
func (p prefixObjects) Swap(ctx context.Context, key string, data []byte, tag string) (string, error) {
	sw, ok := p.ObjectStore.(SwapStore)
	if !ok {
		return "", errNoSwap
	}
	return sw.Swap(ctx, p.prefix+key, data, tag)
}

var errNoSwap = errors.New("store: the object store cannot write conditionally")

// listSlots returns every slot with objects in the bucket, slot 0 first.
func listSlots(ctx context.Context, objs ObjectStore) ([]string, error) {
	res, err := objs.List(ctx, slotsPrefix, "/")
	if err != nil {
		return nil, err
	}
	slots := []string{legacySlot}
	for _, p := range res.Prefixes {
		s := strings.TrimSuffix(strings.TrimPrefix(p, slotsPrefix), "/")
		if validSlot(s) && s != legacySlot {
			slots = append(slots, s)
		}
	}
	return slots, nil
}

// validSlot accepts the slot names writers choose: hex digits.
func validSlot(s string) bool {
	if s == "" || len(s) > 32 {
		return false
	}
	for i := 0; i < len(s); i++ {
		if c := s[i]; !(c >= '0' && c <= '9' || c >= 'a' && c <= 'f') {
			return false
		}
	}
	return true
}

// regEntry is a dataset's registry object (OBJECTS.md, "The registry").
type regEntry struct {
	Dataset    string    `json:"dataset"`
	Created    time.Time `json:"created"`
	TrimBefore int64     `json:"trimBefore"`
}

// regCache keeps registry entries by the listing of their objects.
type regCache struct {
	mu sync.Mutex
	m  map[string]regCached
}

type regCached struct {
	info   ObjectInfo
	e      regEntry
	readAt time.Time
}

// regSettled is how much older than the read of an entry its object must
// be for the listing to tell a rewrite: S3 dates objects to the second,
// so a rewrite within the second of a read may list alike, and the two
// clocks may differ by a few seconds.
const regSettled = 10 * time.Second

func registryKey(ds string) string { return registryPrefix + ds + ".json" }

// readRegistry returns every registered dataset by name. legacy is true
// when the bucket has no registry at all (a prefix an earlier aplite
// wrote): then slot 0's datasets stand in for it.
func readRegistry(ctx context.Context, objs ObjectStore, cache *regCache) (reg map[string]regEntry, legacy bool, err error) {
	res, err := objs.List(ctx, registryPrefix, "")
	if err != nil {
		return nil, false, err
	}
	reg = map[string]regEntry{}
	cache.mu.Lock()
	defer cache.mu.Unlock()
	next := map[string]regCached{}
	for _, o := range res.Objects {
		name, ok := strings.CutSuffix(strings.TrimPrefix(o.Key, registryPrefix), ".json")
		if !ok || ValidateName(name) != nil {
			continue
		}
		if c, ok := cache.m[name]; ok && sameObject(c.info, o) && o.Modified.Before(c.readAt.Add(-regSettled)) {
			reg[name], next[name] = c.e, c
			continue
		}
		readAt := time.Now()
		e, err := getRegEntry(ctx, objs, name)
		if errors.Is(err, ErrObjectNotFound) { // deleted since the listing
			continue
		}
		if err != nil {
			return nil, false, err
		}
		reg[name], next[name] = e, regCached{info: o, e: e, readAt: readAt}
	}
	cache.m = next
	if len(res.Objects) > 0 {
		return reg, false, nil
	}
	names, err := bucketDatasets(ctx, objs)
	if err != nil {
		return nil, false, err
	}
	for _, name := range names {
		cat, err := loadCatalog(ctx, objs, name, nil)
		if err != nil {
			return nil, false, fmt.Errorf("dataset %s: %w", name, err)
		}
		if cat != nil {
			reg[name] = regEntry{Dataset: name, Created: cat.Created, TrimBefore: cat.TrimBefore}
		}
	}
	return reg, true, nil
}

// getRegEntry reads one registry object.
func getRegEntry(ctx context.Context, objs ObjectStore, name string) (regEntry, error) {
	b, err := objs.Get(ctx, registryKey(name))
	if err != nil {
		return regEntry{}, err
	}
	var e regEntry
	if err := json.Unmarshal(b, &e); err != nil || e.Dataset != name {
		return regEntry{}, &CorruptionError{File: registryKey(name), Reason: "registry: not a registry entry of this dataset"}
	}
	return e, nil
}

// register creates the dataset's registry object; ErrExists when the
// name is taken.
func register(ctx context.Context, objs ObjectStore, e regEntry) error {
	b, err := json.Marshal(&e)
	if err != nil {
		return err
	}
	err = objs.PutIfAbsent(ctx, registryKey(e.Dataset), b)
	if errors.Is(err, ErrObjectExists) {
		return fmt.Errorf("%w: %s", ErrExists, e.Dataset)
	}
	return err
}

// raiseRegistryTrim raises the registry's trim bound to before (never
// lowers it), with a conditional write retried on conflict.
func raiseRegistryTrim(ctx context.Context, objs ObjectStore, name string, created time.Time, before int64) error {
	sw, ok := objs.(SwapStore)
	if !ok {
		return errNoSwap
	}
	for range 10 {
		b, tag, err := sw.GetTag(ctx, registryKey(name))
		if err != nil {
			return fmt.Errorf("store: dataset %s: reading its registry entry: %w", name, err)
		}
		var e regEntry
		if err := json.Unmarshal(b, &e); err != nil {
			return &CorruptionError{File: registryKey(name), Reason: "registry: " + err.Error()}
		}
		if !e.Created.Equal(created) {
			return fmt.Errorf("%w: %s (deleted and created again)", ErrNotFound, name)
		}
		if e.TrimBefore != 0 && before <= e.TrimBefore {
			return nil
		}
		e.TrimBefore = before
		nb, _ := json.Marshal(&e)
		_, err = sw.Swap(ctx, registryKey(name), nb, tag)
		if !errors.Is(err, ErrObjectChanged) {
			return err
		}
	}
	return fmt.Errorf("store: dataset %s: its registry entry kept changing while trimming", name)
}

// nonce is 16 random hex digits: block object names, slot ids, lease
// holders.
func nonce() string {
	var b [8]byte
	_, _ = rand.Read(b[:])
	return hex.EncodeToString(b[:])
}
