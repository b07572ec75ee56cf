package main

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/aplite/aplite/db"
	"github.com/aplite/aplite/objstore"
	"github.com/aplite/aplite/server"
)

// Node roles (-role): all is today's single node; ingest owns the WALs
// and publishes blocks; query only reads the bucket.
const (
	roleAll    = "all"
	roleIngest = "ingest"
	roleQuery  = "query"
)

// storageFlags are the object-storage options of `aplite serve`.
type storageFlags struct {
	url      string
	role     string
	cache    string
	cacheMem string
	refresh  time.Duration
	ingest   string
	leaseTTL time.Duration
	tail     time.Duration
}

// configureStorage sets cfg's storage from the flags: the local data
// directory (no -storage), or blocks in an S3 bucket read through a disk
// and a memory cache. It returns the bucket's counters (nil when local).
func configureStorage(ctx context.Context, f storageFlags, cfg *server.Config) (*objstore.Stats, error) {
	switch f.role {
	case roleAll, roleIngest, roleQuery:
	default:
		return nil, fmt.Errorf("-role %q: want all, ingest or query", f.role)
	}
	if f.ingest != "" && f.role != roleQuery {
		return nil, fmt.Errorf("-ingest names the ingest node for a query node (-role query), not for -role %s", f.role)
	}
	if f.url == "" {
		if f.role != roleAll {
			return nil, fmt.Errorf("-role %s needs -storage s3://BUCKET/PREFIX: nodes share blocks through the bucket", f.role)
		}
		return nil, nil
	}
	s3cfg, err := objstore.ParseURL(f.url)
	if err != nil {
		return nil, err
	}
	cacheBytes, err := parseSize(f.cache)
	if err != nil {
		return nil, fmt.Errorf("-cache-size: %w", err)
	}
	memBytes, err := parseSize(f.cacheMem)
	if err != nil {
		return nil, fmt.Errorf("-cache-mem: %w", err)
	}
	bucket, err := objstore.NewS3(ctx, s3cfg)
	if err != nil {
		return nil, err
	}
	disk, err := objstore.OpenDisk(filepath.Join(cfg.DataDir, ".cache"), cacheBytes)
	if err != nil {
		return nil, err
	}
	objs := objstore.NewCached(bucket, memBytes, disk, bucket.Stats())
	opts := cfg.StoreOptions
	opts.Objects = objs
	opts.Refresh = f.refresh
	if f.tail < 0 {
		return nil, fmt.Errorf("-tail %v: want a duration of 0 (no tails) or more, such as 500ms", f.tail)
	}
	// A query node with -ingest has the ingest node's unflushed events
	// from its rest fragment: reading tails too would count them twice.
	if f.ingest == "" {
		opts.TailInterval = f.tail
	}
	cfg.Objects, cfg.MetaRefresh, cfg.MetaRole = objs, f.refresh, server.MetaPublish
	if f.role == roleQuery {
		cfg.MetaRole = server.MetaFollow
		d, err := db.OpenRemote(db.Options{Store: opts, Engine: cfg.Engine, Isolated: true})
		if err != nil {
			return nil, err
		}
		cfg.DB = d
		return bucket.Stats(), nil
	}
	// A writer opens its DB here, before the server publishes any
	// metadata to the bucket: opening takes the prefix's writer lease
	// (core/store/OBJECTS.md), and a second writer must be refused
	// before it writes anything there.
	opts.LeaseTTL = f.leaseTTL
	if opts.Logf == nil {
		opts.Logf = func(format string, args ...any) { fmt.Fprintf(os.Stderr, "aplite: "+format+"\n", args...) }
	}
	d, err := db.Open(cfg.DataDir, db.Options{Store: opts, Engine: cfg.Engine, Isolated: true})
	if err != nil {
		return nil, err
	}
	cfg.StoreOptions, cfg.DB = opts, d
	return bucket.Stats(), nil
}

// parseSize reads a byte count with an optional K, M, G or T suffix
// (powers of 1024), e.g. 512M or 10G.
func parseSize(s string) (int64, error) {
	s = strings.TrimSpace(strings.ToUpper(strings.TrimSuffix(strings.TrimSuffix(s, "B"), "b")))
	mult := int64(1)
	if n := len(s); n > 0 {
		switch s[n-1] {
		case 'K':
			mult = 1 << 10
		case 'M':
			mult = 1 << 20
		case 'G':
			mult = 1 << 30
		case 'T':
			mult = 1 << 40
		}
		if mult > 1 {
			s = strings.TrimSuffix(s[:n-1], "I")
		}
	}
	v, err := strconv.ParseInt(s, 10, 64)
	if err != nil || v < 0 {
		return 0, fmt.Errorf("%q is not a size such as 512M or 10G", s)
	}
	return v * mult, nil
}
