package main

import (
	"flag"
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"runtime"
	"time"

	"github.com/aplite/aplite/server"
	"github.com/aplite/aplite/server/meta"
)

// logFlags are the logging options of `aplite serve`.
type logFlags struct {
	format string
	level  string
	slow   time.Duration
}

func (l *logFlags) register(fs *flag.FlagSet) {
	fs.StringVar(&l.format, "log-format", envOr("APLITE_LOG_FORMAT", "text"), "text (key=value lines) or json (one object a line, for log shippers) (APLITE_LOG_FORMAT)")
	fs.StringVar(&l.level, "log-level", envOr("APLITE_LOG_LEVEL", "info"), "debug (every request), info (start-up, slow queries, refused requests), warn (failures only) or error (APLITE_LOG_LEVEL)")
	fs.DurationVar(&l.slow, "slow-query", time.Second, "log a query that takes this long or longer, with its APL and request id, at info level (0: none)")
}

// logger builds the server's logger on w, and points cfg's text notices
// (and the storage's) at it, so the whole log has one format.
func (l *logFlags) logger(w io.Writer, cfg *server.Config) (*slog.Logger, error) {
	level, err := server.ParseLogLevel(l.level)
	if err != nil {
		return nil, fmt.Errorf("-log-level: %w", err)
	}
	lg, err := server.NewLogger(w, l.format, level)
	if err != nil {
		return nil, fmt.Errorf("-log-format: %w", err)
	}
	notices := server.LogWriter(lg)
	cfg.Logger, cfg.Log, cfg.SlowQuery = lg, notices, l.slow
	if cfg.StoreOptions.Logf == nil {
		cfg.StoreOptions.Logf = func(format string, args ...any) { fmt.Fprintf(notices, format+"\n", args...) }
	}
	return lg, nil
}

// logStart tells the operator what starts: where the data is, how it is
// stored, the node's role, whether this is a restart, and the limits.
func logStart(lg *slog.Logger, cfg *server.Config, sf storageFlags, budgetFrom string, restart bool) {
	data, _ := filepath.Abs(cfg.DataDir)
	storage := "local"
	if sf.url != "" {
		storage = sf.url
	}
	lg.Info("aplite starting", "version", version, "pid", os.Getpid(), "data", data, "storage", storage,
		"role", sf.role, "restart", restart)
	maxQ := cfg.MaxQueries
	if maxQ <= 0 {
		maxQ = 4 * runtime.GOMAXPROCS(0)
	}
	budget := "off"
	if cfg.MemoryBudget > 0 {
		budget = fmt.Sprintf("%dM (%s)", cfg.MemoryBudget>>20, budgetFrom)
	}
	lg.Info("limits", "query_timeout", cfg.QueryTimeout, "query_memory", mb(cfg.QueryMemory), "max_queries", maxQ,
		"max_body", mb(cfg.MaxBodyBytes), "memory_budget", budget, "slow_query", cfg.SlowQuery)
}

func mb(n int64) string { return fmt.Sprintf("%dM", n>>20) }

// isRestart reports whether dir already holds a server's metadata.
func isRestart(dir string) bool {
	_, err := os.Stat(filepath.Join(dir, meta.FileName))
	return err == nil
}

// logOpened says what a start found in the data directory: on a restart,
// the datasets and events kept (the storage has already logged the WAL
// records it replayed into the buffer).
func logOpened(lg *slog.Logger, srv *server.Server, restart bool) {
	if !restart {
		lg.Info("new data directory")
		return
	}
	n, events, blocks := srv.Stored()
	lg.Info("restarted on an existing data directory", "datasets", n, "events", events, "blocks", blocks)
}

// fatal reports an error that stops serve before it serves: a record of
// the JSON log for a log shipper, and for a person reading text on stderr
// the message as typed (`aplite: -role "boss": …`), which a text record
// would show with its quotes escaped.
func (l *logFlags) fatal(lg *slog.Logger, err error) {
	if l.format == "json" {
		lg.Error(err.Error())
		return
	}
	fmt.Fprintln(os.Stderr, "aplite:", err)
}
