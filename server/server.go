package server

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/valyala/fasthttp"

	"github.com/aplite/aplite/db"
	"github.com/aplite/aplite/server/meta"
)

// Config configures a Server. Zero fields take the defaults of the
// command line contract (shared/spec/cli.md).
type Config struct {
	// Addr is the listen address (default 127.0.0.1:8080).
	Addr string
	// DataDir holds the datasets, the metadata file and the generated
	// admin token (default ./data).
	DataDir string
	// Token is a personal access token (xapt-…) created at start when
	// absent, with full control of the default org. Empty: the first start
	// generates one, prints it once on Log and keeps it in DataDir.
	Token string
	// OrgID is the id of the default org (default "default").
	OrgID string
	// MaxBodyBytes caps a request body after decompression (default 100 MB).
	MaxBodyBytes int64
	// ReadTimeout bounds reading one request, body included (default 60s);
	// WriteTimeout bounds writing one response (default 5m, for long
	// queries); IdleTimeout closes idle keep-alive connections (default 2m).
	ReadTimeout, WriteTimeout, IdleTimeout time.Duration
	// Log receives start-up notices and internal errors (default stderr).
	// Tokens are never written to it, except the generated admin token once.
	Log io.Writer
	// Logger logs requests, slow queries and failures (logging.go);
	// default: warnings and errors as text to Log. `aplite serve` makes
	// Log a LogWriter of it, so everything comes out in one format.
	Logger *slog.Logger
	// SlowQuery logs, at info level, every query that takes this long or
	// longer, with its APL and request id (0: none).
	SlowQuery time.Duration
	// StoreOptions tune the storage engine opened in DataDir.
	StoreOptions db.StoreOptions
	// Engine bounds the query engine's caches.
	Engine db.EngineOptions
	// DB serves datasets from this database instead of opening the one in
	// DataDir (tests and benchmarks use one in memory, a query node one
	// over object storage). It should be opened Isolated, as the server's
	// own is. The server closes it on Shutdown.
	DB *db.DB
	// QueryTimeout bounds one query (default 2 minutes); QueryMemory its
	// hash tables and buffers (default 2 GiB); MaxQueries the queries
	// running at once (default 4 per core), more wait up to QueryQueue
	// (default 10 s) for a slot and then get 429.
	QueryTimeout time.Duration
	QueryMemory  int64
	MaxQueries   int
	QueryQueue   time.Duration
	// MemoryBudget is the resident memory the whole process aims to stay
	// under; what the caches and the runtime do not take is shared by the
	// running queries (governor.go). 0: no budget, as before.
	MemoryBudget int64
	// MonitorTick is how often the scheduler looks for monitors due to run
	// (default 15 s; negative: no scheduler, as tests that drive it).
	MonitorTick time.Duration
	// Peers lists the query nodes (host:port) that share the scan of each
	// query; empty runs every query on the node that receives it.
	Peers []string
	// Advertise is this node's address as the peers know it (default
	// Addr).
	Advertise string
	// ClusterSecret authenticates nodes to each other; required with
	// Peers and Ingest.
	ClusterSecret string
	// Heartbeat, when positive, is how often this node writes its
	// heartbeat to the bucket (Objects) and lists the others'
	// (membership.go): the query nodes alive there share each query's
	// scan beside Peers. HeartbeatTTL is how long a beat lasts unrenewed
	// (default 4 heartbeats).
	Heartbeat    time.Duration
	HeartbeatTTL time.Duration
	// Ingest is the ingest node's host:port, for a query node: every query
	// also asks it for the events it has not flushed to the bucket yet.
	Ingest string
	// FragmentMinRows is the fewest rows a query must leave to other
	// nodes before its scan is cut into fragments (default 2,000,000; 1
	// always cuts).
	FragmentMinRows int64
	// FragmentTimeout is the longest a query waits for another node's
	// part of it (default 10 s, and never more than the query has left):
	// a peer that does not answer is given up on and its blocks scanned
	// elsewhere; an ingest node that does not answer leaves the answer
	// partial, saying which events it lacks.
	FragmentTimeout time.Duration
	// Objects is the bucket of a cluster; with MetaRole it carries the
	// metadata between nodes (metasync.go).
	Objects db.ObjectStore
	// MetaRole is MetaPublish on the node that owns the datasets and
	// MetaFollow on query nodes; MetaLocal (empty) keeps metadata local.
	MetaRole string
	// MetaRefresh is how often a follower looks for newer metadata
	// (default 2 s).
	MetaRefresh time.Duration
	// ObjectStats, when set, reports the object store's request and cache
	// counters on /metrics.
	ObjectStats func() map[string]int64
	// ExternalDataAllow lists URL prefixes APL's externaldata operator may
	// read; empty (the default) disables the operator.
	ExternalDataAllow []string
	// NotifyAllow lists the CIDRs and host names notifiers may deliver to
	// although they are loopback, link-local, private, unspecified or
	// multicast (-notify-allow; notify_policy.go). Empty: none.
	NotifyAllow []string
}

// TokenFileName is the file in the data directory that keeps a generated
// admin token.
const TokenFileName = "admin-token"

func (c *Config) setDefaults() {
	if c.Addr == "" {
		c.Addr = "127.0.0.1:8080"
	}
	if c.DataDir == "" {
		c.DataDir = "./data"
	}
	if c.OrgID == "" {
		c.OrgID = "default"
	}
	if c.MaxBodyBytes <= 0 {
		c.MaxBodyBytes = 100 << 20
	}
	if c.ReadTimeout <= 0 {
		c.ReadTimeout = 60 * time.Second
	}
	if c.WriteTimeout <= 0 {
		c.WriteTimeout = 5 * time.Minute
	}
	if c.IdleTimeout <= 0 {
		c.IdleTimeout = 2 * time.Minute
	}
	if c.Log == nil {
		c.Log = os.Stderr
	}
	c.Log = &lockedWriter{w: c.Log}
	if c.Logger == nil {
		c.Logger = slog.New(slog.NewTextHandler(c.Log, &slog.HandlerOptions{Level: slog.LevelWarn}))
	}
	if c.Advertise == "" {
		c.Advertise = c.Addr
	}
	if c.MonitorTick == 0 {
		c.MonitorTick = 15 * time.Second
	}
	if c.FragmentMinRows <= 0 {
		c.FragmentMinRows = 2_000_000
	}
	if c.FragmentTimeout <= 0 {
		c.FragmentTimeout = 10 * time.Second
	}
	if c.QueryTimeout <= 0 {
		c.QueryTimeout = 2 * time.Minute
	}
	if c.QueryMemory <= 0 {
		c.QueryMemory = 2 << 30
	}
	if c.MaxQueries <= 0 {
		c.MaxQueries = 4 * runtime.GOMAXPROCS(0)
	}
	if c.QueryQueue <= 0 {
		c.QueryQueue = 10 * time.Second
	}
	if c.MetaRefresh <= 0 {
		c.MetaRefresh = 2 * time.Second
	}
}

// Server is aplite's HTTP API over one data directory.
type Server struct {
	cfg      Config
	external *externalFetcher
	meta     *meta.Store
	// db holds the datasets and runs the queries; isolated, so every
	// query reads only its org's view (Request.Catalog).
	db      *db.DB
	srv     *fasthttp.Server
	handler fasthttp.RequestHandler
	token   string
	started time.Time

	metrics *metrics
	cluster clusterStats
	gate    *queryGate
	gov     *memGovernor
	// life is cancelled at shutdown, stopping the queries still running.
	life     context.Context
	endLife  context.CancelFunc
	metaSync *metaSync
	// members finds the other nodes through the bucket (nil without
	// Config.Heartbeat).
	members *membership
	// storageOrg is the org whose datasets keep plain stored names
	// (storage_org.go).
	storageOrg string
	// adminSrv serves `aplite admin` on the data directory's socket adminLn.
	adminSrv *fasthttp.Server
	adminLn  net.Listener
	limits   limiter
	orgs     orgCache
	tokens   tokenCache
	dsets    settingsCache

	closeOnce sync.Once
	closeErr  error
}

// New opens the data directory (metadata and datasets), makes sure the
// default org, its owner and the admin token exist, and builds the router.
// It does not listen yet.
func New(cfg Config) (*Server, error) {
	cfg.setDefaults()
	if cfg.Token != "" && !strings.HasPrefix(cfg.Token, meta.PrefixPersonal) {
		return nil, fmt.Errorf("token must be a personal access token starting with %q", meta.PrefixPersonal)
	}
	if cfg.Token != "" && !meta.ValidSecret(cfg.Token) {
		return nil, fmt.Errorf("token %q is malformed: use %q followed by letters and digits", "xapt-…", meta.PrefixPersonal)
	}
	if err := meta.ValidOrgID(cfg.OrgID); err != nil {
		return nil, fmt.Errorf("-org: %w", err)
	}
	if (len(cfg.Peers) > 0 || cfg.Ingest != "" || cfg.Heartbeat > 0) && cfg.ClusterSecret == "" {
		return nil, fmt.Errorf("peers, -ingest and -heartbeat need a cluster secret (-cluster-secret or APLITE_CLUSTER_SECRET) so nodes can trust each other")
	}
	if cfg.Heartbeat > 0 && cfg.HeartbeatTTL > 0 && cfg.HeartbeatTTL <= cfg.Heartbeat {
		return nil, fmt.Errorf("-heartbeat-ttl %s must be longer than -heartbeat %s, or a node would drop out between its beats", cfg.HeartbeatTTL, cfg.Heartbeat)
	}
	if err := checkAdvertise(cfg); err != nil {
		return nil, err
	}
	if cfg.Heartbeat > 0 && cfg.Objects == nil {
		return nil, fmt.Errorf("-heartbeat %s needs -storage s3://BUCKET/PREFIX: nodes find each other in the bucket", cfg.Heartbeat)
	}
	gov, err := newGovernorFor(&cfg)
	if err != nil {
		return nil, err
	}
	s := &Server{cfg: cfg, started: time.Now(), metrics: newMetrics(), gate: newQueryGate(cfg.MaxQueries, cfg.QueryQueue), gov: gov}
	s.life, s.endLife = context.WithCancel(context.Background())
	if gov != nil {
		go gov.watchProcess(s.life)
	}
	var loaded uint64
	_, statErr := os.Stat(filepath.Join(cfg.DataDir, meta.FileName))
	fresh := os.IsNotExist(statErr) // a new disk: the bucket's copy is the truth
	if cfg.Objects != nil && (cfg.MetaRole == MetaFollow || cfg.MetaRole == MetaPublish && fresh) {
		v, err := fetchMetaFile(cfg.Objects, cfg.DataDir)
		if err != nil {
			return nil, fmt.Errorf("loading the cluster's metadata from the bucket: %w", err)
		}
		loaded = v
	}
	ms, err := meta.Open(cfg.DataDir)
	if err != nil {
		return nil, err
	}
	s.meta = ms
	if err := s.bootstrap(); err != nil {
		ms.Close()
		return nil, err
	}
	if err := s.startMetaSync(loaded); err != nil {
		ms.Close()
		return nil, err
	}
	s.db = cfg.DB
	if s.db == nil {
		if s.db, err = openDB(cfg.DataDir, &cfg); err != nil {
			ms.Close()
			return nil, err
		}
	}
	s.db.SetFieldLimit(s.fieldLimit)
	s.startMonitors()
	s.external = newExternalFetcher(cfg.ExternalDataAllow, s.cfg.MaxBodyBytes)
	s.handler = fasthttp.CompressHandlerLevel(s.routes().Handler, fasthttp.CompressBestSpeed)
	s.srv = &fasthttp.Server{
		Handler:                      s.handler,
		Name:                         "aplite",
		ReadTimeout:                  cfg.ReadTimeout,
		WriteTimeout:                 cfg.WriteTimeout,
		IdleTimeout:                  cfg.IdleTimeout,
		MaxRequestBodySize:           int(min(cfg.MaxBodyBytes, 1<<31-1)),
		DisablePreParseMultipartForm: true,
		NoDefaultContentType:         false,
		ErrorHandler:                 s.transportError,
		Logger:                       fasthttpLogger{s},
		ReadBufferSize:               16 << 10,
		CloseOnShutdown:              true,
	}
	s.startAdminSocket()
	s.startMembership()
	return s, nil
}

// bootstrap creates the default org, its owner and the admin token.
func (s *Server) bootstrap() error {
	now := time.Now()
	owner, err := s.meta.Bootstrap(s.cfg.OrgID, now)
	if err != nil {
		return err
	}
	tok := s.cfg.Token
	if tok == "" {
		if tok, err = s.generatedToken(); err != nil {
			return err
		}
	}
	s.token = tok
	if err := s.meta.EnsurePAT(tok, owner.ID, s.cfg.OrgID, now); err != nil {
		return err
	}
	s.storageOrg, err = loadStorageOrg(s.meta, s.cfg.OrgID)
	return err
}

// generatedToken returns the admin token kept in the data directory,
// creating it (and announcing it once) on the first start.
func (s *Server) generatedToken() (string, error) {
	path := filepath.Join(s.cfg.DataDir, TokenFileName)
	if b, err := os.ReadFile(path); err == nil {
		tok := strings.TrimSpace(string(b))
		if meta.ValidSecret(tok) {
			return tok, nil
		}
		return "", fmt.Errorf("%s does not hold a valid token; delete it to generate a new one", path)
	} else if !errors.Is(err, os.ErrNotExist) {
		return "", err
	}
	tok := meta.NewSecret(meta.PrefixPersonal)
	if err := os.WriteFile(path, []byte(tok+"\n"), 0o600); err != nil {
		return "", fmt.Errorf("keep generated token: %w", err)
	}
	abs, _ := filepath.Abs(path)
	fmt.Fprintf(s.cfg.Log, "aplite: created personal access token %s for org %q\naplite: it is kept in %s (pass it with -token or read it from there)\n",
		tok, s.cfg.OrgID, abs)
	return tok, nil
}

// Token returns the admin personal access token (the configured or the
// generated one).
func (s *Server) Token() string { return s.token }

// OrgID returns the id of the default org.
func (s *Server) OrgID() string { return s.cfg.OrgID }

// Handler returns the request handler, for serving on any listener (tests
// use fasthttputil.NewInmemoryListener with Serve).
func (s *Server) Handler() fasthttp.RequestHandler { return s.handler }

// ListenAndServe listens on Config.Addr and serves until Shutdown. A port
// already in use fails at once with an error that says so.
func (s *Server) ListenAndServe() error {
	ln, err := net.Listen("tcp", s.cfg.Addr)
	if err != nil {
		if errors.Is(err, syscall.EADDRINUSE) {
			return fmt.Errorf("cannot listen on %s: address already in use (is another aplite running?)", s.cfg.Addr)
		}
		return fmt.Errorf("cannot listen on %s: %w", s.cfg.Addr, err)
	}
	return s.Serve(ln)
}

// Serve serves requests from ln until Shutdown.
func (s *Server) Serve(ln net.Listener) error {
	return s.srv.Serve(ln)
}

// Shutdown stops accepting connections, waits for in-flight requests (or
// ctx), then flushes and closes the storage and the metadata file.
func (s *Server) Shutdown(ctx context.Context) error {
	if s.members != nil {
		// Leave first: the others stop sending fragments here at their
		// next listing while the in-flight ones finish.
		s.members.close()
	}
	go func() {
		// Queries still running when the grace period ends are cancelled.
		<-ctx.Done()
		s.endLife()
	}()
	err := s.srv.ShutdownWithContext(ctx)
	if cerr := s.Close(); err == nil {
		err = cerr
	}
	return err
}

// Close releases the storage and metadata without touching listeners
// (for servers that never served, or after Shutdown).
func (s *Server) Close() error {
	s.closeOnce.Do(func() {
		s.endLife()
		if s.members != nil {
			s.members.close()
		}
		s.stopAdminSocket()
		if s.metaSync != nil {
			s.metaSync.close()
		}
		s.closeErr = s.db.Close()
		if err := s.meta.Close(); s.closeErr == nil {
			s.closeErr = err
		}
	})
	return s.closeErr
}

// transportError answers errors fasthttp meets before a handler runs
// (body too large, read timeout, malformed request) with a JSON error.
func (s *Server) transportError(ctx *fasthttp.RequestCtx, err error) {
	setTraceID(ctx)
	var status int
	var msg string
	switch {
	case errors.Is(err, fasthttp.ErrBodyTooLarge):
		status, msg = fasthttp.StatusRequestEntityTooLarge,
			fmt.Sprintf("request body exceeds the limit of %d bytes", s.srv.MaxRequestBodySize)
	case isTimeout(err):
		status, msg = fasthttp.StatusRequestTimeout, "timed out reading the request"
	default:
		status, msg = fasthttp.StatusBadRequest, "malformed request: "+shortErr(err)
	}
	if isHECPath(ctx.Path()) {
		writeHECError(ctx, errorf(status, "%s", msg)) // HEC clients read HEC's shape
		return
	}
	writeError(ctx, errorf(status, "%s", msg))
}

func isTimeout(err error) bool {
	var ne net.Error
	return errors.As(err, &ne) && ne.Timeout()
}
