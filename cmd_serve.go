package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"os/signal"
	"runtime/debug"
	"strings"
	"syscall"
	"time"

	"github.com/aplite/aplite/db"
	"github.com/aplite/aplite/server"
)

// envOr returns the environment variable's value, or def.
func envOr(name, def string) string {
	if v := os.Getenv(name); v != "" {
		return v
	}
	return def
}

// cmdServe is `aplite serve`: the HTTP API until SIGINT or SIGTERM.
func cmdServe(args []string) int {
	fs := flag.NewFlagSet("serve", flag.ContinueOnError)
	addr := fs.String("addr", envOr("APLITE_ADDR", "127.0.0.1:8080"), "listen address (APLITE_ADDR)")
	data := fs.String("data", envOr("APLITE_DATA", "./data"), "data directory (APLITE_DATA)")
	token := fs.String("token", envOr("APLITE_TOKEN", ""), "personal access token (xapt-...) with full control, created if absent (APLITE_TOKEN)")
	org := fs.String("org", envOr("APLITE_ORG_ID", "default"), "id of the default organization (APLITE_ORG_ID)")
	extAllow := fs.String("externaldata-allow", envOr("APLITE_EXTERNALDATA_ALLOW", ""), "comma-separated URL prefixes APL's externaldata may read; empty disables it (APLITE_EXTERNALDATA_ALLOW)")
	notifyAllow := fs.String("notify-allow", envOr("APLITE_NOTIFY_ALLOW", ""), "comma-separated CIDRs and host names that notifiers may deliver to although they are loopback, link-local, private (10/8, 172.16/12, 192.168/16, fc00::/7, 100.64/10), unspecified or multicast, which are refused by default, when a notifier is saved and again after DNS at each delivery; e.g. 127.0.0.0/8,hooks.internal (APLITE_NOTIFY_ALLOW)")
	var sf storageFlags
	fs.StringVar(&sf.url, "storage", envOr("APLITE_STORAGE", ""), "where blocks live: empty for the data directory, or s3://BUCKET/PREFIX (endpoint and keys from AWS_ENDPOINT_URL_S3/AWS_ENDPOINT_URL, AWS_ACCESS_KEY_ID, AWS_SECRET_ACCESS_KEY, AWS_REGION) (APLITE_STORAGE)")
	fs.StringVar(&sf.role, "role", envOr("APLITE_ROLE", roleAll), "all (one node), ingest (owns the WAL, uploads blocks) or query (reads the bucket, keeps no state); ingest and query need -storage (APLITE_ROLE)")
	fs.StringVar(&sf.cache, "cache-size", envOr("APLITE_CACHE_SIZE", "10G"), "bound of the on-disk block cache in DATA/.cache with -storage (APLITE_CACHE_SIZE)")
	fs.StringVar(&sf.cacheMem, "cache-mem", envOr("APLITE_CACHE_MEM", "512M"), "bound of the in-memory cache of block byte ranges with -storage (APLITE_CACHE_MEM)")
	fs.DurationVar(&sf.refresh, "refresh", 2*time.Second, "how often a query node reloads the catalogs from the bucket, and an ingest node those of the other ingest nodes (and the datasets they created, deleted or trimmed)")
	fs.DurationVar(&sf.leaseTTL, "lease-ttl", 30*time.Second, "with -storage, how long a writer's lease on its slot (and the metadata publisher's) lasts unrenewed: any number of ingest nodes share a prefix, each in a slot kept in -data/writer-slot; a second process on one slot is refused while the lease lives, and takes over this long after a writer dies without closing (core/store/OBJECTS.md)")
	fs.DurationVar(&sf.tail, "tail", 500*time.Millisecond, "with -storage, how often an ingest node publishes to the bucket the events it acknowledged and has not flushed yet, and a query node reads them, so query nodes see an event about a second after it was acknowledged without asking the ingest node (core/store/OBJECTS.md, \"Tails\"); 0: never (query nodes then see events at the flush); not read by a query node with -ingest")
	fs.StringVar(&sf.ingest, "ingest", envOr("APLITE_INGEST", ""), "host:port of the ingest node, for a query node: each query also reads the events it has not flushed yet, so the answer is the ingest node's (needs -cluster-secret) (APLITE_INGEST)")
	peers := fs.String("peers", envOr("APLITE_PEERS", ""), "comma-separated host:port of the query nodes that share each query's scan (this node may be listed) (APLITE_PEERS)")
	heartbeat := fs.Duration("heartbeat", 0, "with -storage, how often this node writes its heartbeat under nodes/ in the bucket and lists the others': query nodes that beat share each query's scan with each other (merged with -peers), so they need no list (needs -cluster-secret); 0 (the default) does neither")
	heartbeatTTL := fs.Duration("heartbeat-ttl", 0, "how long this node's heartbeat lasts unrenewed before the others stop sending it fragments (default 4 times -heartbeat)")
	advertise := fs.String("advertise", envOr("APLITE_ADVERTISE", ""), "this node's host:port as its peers reach it (default -addr) (APLITE_ADVERTISE)")
	fragTimeout := fs.Duration("fragment-timeout", 10*time.Second, "longest a query waits for another node's part of it (cut to what the query has left): a peer that does not answer is given up on and its blocks scanned elsewhere; an ingest node that does not answer leaves the answer partial (isPartial), naming it and the events it lacks")
	fragMin := fs.Int64("fragment-min-rows", 2_000_000, "fewest rows other nodes must scan before a query is cut into fragments (smaller scans run on the node that receives them)")
	secret := fs.String("cluster-secret", envOr("APLITE_CLUSTER_SECRET", ""), "secret the nodes of a cluster share to call each other; required with -peers (APLITE_CLUSTER_SECRET)")
	queryTimeout := fs.Duration("query-timeout", 2*time.Minute, "longest a query may run; it then fails alone with a clear error")
	queryMemory := fs.String("query-memory", "2G", "memory one query may hold in hash tables, sorts and the rows and strings it builds before it fails alone (HTTP 432); the server's RSS can reach about 2.5 times it per running query (docs/LIMITS.md)")
	maxQueries := fs.Int("max-queries", 0, "queries running at once (default 4 per core); more wait up to 10 s, then get 429")
	maxBody := fs.String("max-body", "100M", "largest request body, after decompression")
	flushEvery := fs.Duration("flush-interval", 10*time.Second, "longest time an ingested event stays in the WAL before it is written to a block (and, with -storage, seen by query nodes)")
	idleFlush := fs.Duration("idle-flush", 2*time.Second, "flush a dataset this long after its last event, before -flush-interval, so an ingest that stopped leaves nothing waiting in the WAL")
	flushRows := fs.Int("flush-rows", 262144, "events a dataset buffers (compressed, in memory) before they are written to a block: bounds ingest memory per dataset")
	colCache := fs.String("column-cache", "auto", "memory kept for decoded columns that later queries reuse: a size, 0 for none, or auto, a quarter of -memory-budget (with -memory-budget the cache holds only what running queries leave and gives it back when they need it)")
	memLimit := fs.String("memory-limit", envOr("GOMEMLIMIT", ""), "soft limit of the process's memory: the garbage collector works harder as the heap nears it, so RSS stays near this bound (e.g. 768M keeps a 10M-event server's query peak under 1 GB, docs/LIMITS.md; empty: no limit, and the heap may grow to twice what it holds) (GOMEMLIMIT)")
	memBudget := fs.String("memory-budget", envOr("APLITE_MEMORY_BUDGET", ""), "resident memory the whole server aims to stay under: the running queries share what the caches leave, a query that does not fit waits up to 5 s and then gets 429, one whose growth does not fit fails alone (default: -memory-limit if set, else 60% of the memory cgroup's limit or of the host's memory; it is also the collector's soft limit unless -memory-limit is set; off: no budget) (APLITE_MEMORY_BUDGET)")
	resultCache := fs.String("result-cache", "256M", "memory kept for answers to repeated queries over unchanged blocks (0 keeps none)")
	compactEvery := fs.Duration("compact-interval", 2*time.Second, "how often compaction looks for blocks to merge (all small blocks once a dataset has had no event for 3 s)")
	compactAge := fs.Duration("compact-age", 30*time.Second, "while events keep coming, how old a full-size block must be before compaction merges it")
	var slf syslogFlags // -syslog and its options: cmd_serve_syslog.go
	slf.register(fs)
	var lf logFlags
	lf.register(fs)
	if err := fs.Parse(args); err != nil {
		if err == flag.ErrHelp {
			return 0
		}
		return 2
	}
	qmem, err := parseSize(*queryMemory)
	if err != nil {
		fmt.Fprintln(os.Stderr, "aplite: -query-memory:", err)
		return 2
	}
	body, err := parseSize(*maxBody)
	if err != nil {
		fmt.Fprintln(os.Stderr, "aplite: -max-body:", err)
		return 2
	}
	if *compactAge <= 0 {
		fmt.Fprintf(os.Stderr, "aplite: -compact-age %v: want a positive duration, such as 30s or 10m\n", *compactAge)
		return 2
	}
	engine, err := engineOptions(*colCache, *resultCache)
	if err != nil {
		fmt.Fprintln(os.Stderr, "aplite:", err)
		return 2
	}
	if err := setMemoryLimit(*memLimit); err != nil {
		fmt.Fprintln(os.Stderr, "aplite:", err)
		return 2
	}
	budget, budgetFrom, err := memoryBudget(fs, *memBudget, *memLimit, &engine)
	if err != nil {
		fmt.Fprintln(os.Stderr, "aplite:", err)
		return 2
	}
	cfg := server.Config{QueryTimeout: *queryTimeout, QueryMemory: qmem, MemoryBudget: budget, MaxQueries: *maxQueries, MaxBodyBytes: body, Addr: *addr, DataDir: *data, Token: *token, OrgID: *org, ExternalDataAllow: splitList(*extAllow),
		Peers: splitList(*peers), Heartbeat: *heartbeat, HeartbeatTTL: *heartbeatTTL, Advertise: *advertise, ClusterSecret: *secret, FragmentMinRows: *fragMin, FragmentTimeout: *fragTimeout, Ingest: sf.ingest,
		StoreOptions: db.StoreOptions{FlushInterval: *flushEvery, IdleFlush: *idleFlush, CompactInterval: *compactEvery, CompactAge: *compactAge, FlushRows: *flushRows}, Engine: engine}
	cfg.NotifyAllow = splitList(*notifyAllow)
	if err := server.ParseNotifyAllow(cfg.NotifyAllow); err != nil {
		fmt.Fprintln(os.Stderr, "aplite:", err)
		return 2
	}
	lg, err := lf.logger(os.Stderr, &cfg)
	if err != nil {
		fmt.Fprintln(os.Stderr, "aplite:", err)
		return 2
	}
	// Nothing is created before the data directory and the address are
	// known to be free (cmd_serve_preflight.go).
	if err := checkDataDir(cfg.DataDir); err != nil {
		lf.fatal(lg, err)
		return 1
	}
	ln, err := listenFirst(cfg.Addr, cfg.DataDir)
	if err != nil {
		lf.fatal(lg, err)
		return 1
	}
	restart := isRestart(cfg.DataDir)
	logStart(lg, &cfg, sf, budgetFrom, restart)
	objStats, err := configureStorage(context.Background(), sf, &cfg)
	if err != nil {
		ln.Close()
		lf.fatal(lg, err)
		return 1
	}
	if objStats != nil {
		cfg.ObjectStats = objStats.Snapshot
	}
	srv, err := server.New(cfg)
	if err != nil {
		ln.Close()
		lf.fatal(lg, err)
		return 1
	}
	logOpened(lg, srv, restart)
	if c := srv.ColumnCache(); c != nil {
		defer startGCTarget(c.Used, gcFloorBytes)()
	}
	if err := slf.start(srv, lg); err != nil {
		ln.Close()
		srv.Close()
		lf.fatal(lg, err)
		return 1
	}
	// Signals are caught before the "listening" line: a supervisor that
	// stops the server as soon as it is up gets a clean stop.
	sig := make(chan os.Signal, 1)
	signal.Notify(sig, os.Interrupt, syscall.SIGTERM)
	errc := make(chan error, 1)
	go func() { errc <- srv.Serve(ln) }()
	lg.Info("listening on "+ln.Addr().String(), "addr", ln.Addr().String(), "console", "http://"+ln.Addr().String()+"/")
	select {
	case err := <-errc:
		if err != nil {
			lf.fatal(lg, err)
			slf.stop()
			srv.Close()
			return 1
		}
		return 0
	case s := <-sig:
		lg.Info("stopping: finishing in-flight requests (30 s at most), then flushing buffered events to blocks", "signal", s.String())
	}
	slf.stop() // before the storage closes: no syslog batch is cut mid-append
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if err := srv.Shutdown(ctx); err != nil {
		lg.Error("shutdown: " + err.Error())
		return 1
	}
	lg.Info("stopped: every acknowledged event is in the data directory")
	return 0
}

// splitList splits a comma-separated flag value, dropping empty entries.
func splitList(s string) []string {
	var out []string
	for _, p := range strings.Split(s, ",") {
		if p = strings.TrimSpace(p); p != "" {
			out = append(out, p)
		}
	}
	return out
}

// engineOptions reads the cache bounds; 0 keeps nothing (the engine's
// "none" is negative, its zero the default).
func engineOptions(columns, results string) (db.EngineOptions, error) {
	var o db.EngineOptions
	if columns == "auto" {
		columns = "1G" // the engine's default, until memoryBudget sizes it to the machine
	}
	cols, err := parseSize(columns)
	if err != nil {
		return o, fmt.Errorf("-column-cache: %w", err)
	}
	res, err := parseSize(results)
	if err != nil {
		return o, fmt.Errorf("-result-cache: %w", err)
	}
	o.ColumnCacheBytes, o.ResultCacheBytes = cols, res
	if cols == 0 {
		o.ColumnCacheBytes = -1
	}
	if res == 0 {
		o.ResultCacheBytes = -1
	}
	return o, nil
}

// setMemoryLimit applies -memory-limit as the runtime's soft memory limit.
// Go reads GOMEMLIMIT itself, but only in its own syntax (1GiB); the flag
// takes the sizes the other flags take (1G) and says so in serve -h.
func setMemoryLimit(v string) error {
	if v == "" || v == "off" {
		return nil
	}
	n, err := parseSize(strings.TrimSuffix(v, "iB"))
	if err != nil {
		return fmt.Errorf("-memory-limit: %w", err)
	}
	if n > 0 {
		debug.SetMemoryLimit(n)
	}
	return nil
}
