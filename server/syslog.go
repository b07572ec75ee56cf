package server

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"io"
	"net"
	"strconv"
	"sync"
	"time"

	"github.com/aplite/aplite/db/syslog"
	"github.com/aplite/aplite/server/meta"
)

// The syslog listener (serve -syslog ADDR) takes RFC 5424 and RFC 3164
// messages over TCP, octet-counted or newline framed (RFC 6587), or over
// TLS (RFC 5425) when given a certificate, and stores each as one event
// in one dataset of one org (syslog.Writer names the fields).
//
// Syslog has no credentials, so the listener acts as its org's ingest
// path, not as a token: the operator who starts the server names the org
// and dataset, and anyone who can reach the address can write there and
// nowhere else. Each batch goes through what /ingest does: the org's
// ingest rate limit (over it, the listener stops reading that connection
// until the window admits it, so TCP pushes back on the sender instead of
// events being dropped), the dataset's field cap, the ingest metrics and
// a durable append before more is read.
//
// Syslog has no acknowledgement either: a sender counts a message
// delivered once its kernel has sent it. So a batch is what one read of
// the connection brought, appended to the WAL (group commit, as /ingest)
// before the next read; a crash loses at most the batch being stored and
// what sat unread in the socket buffers, which no sender can learn of. A
// batch that cannot be stored closes its connection, so the sender sees
// an error and (rsyslog with a queue) sends again.

// SyslogConfig configures a syslog listener.
type SyslogConfig struct {
	// Dataset receives the events (default "syslog"); it is created in
	// Org when missing.
	Dataset string
	// Org is the org whose dataset and limits the listener uses (default
	// the server's default org).
	Org string
	// TLS, when set, makes every connection TLS (RFC 5425).
	TLS *tls.Config
	// MaxFrame is the largest message (default syslog.MaxFrame, 64 KiB);
	// a larger one closes its connection, as Axiom's endpoint does.
	MaxFrame int

	// wait, when set, replaces the pause of a connection over the ingest
	// limit (tests drive the limiter's clock with it).
	wait func(d time.Duration) bool
}

// maxBatchFrames bounds one batch, so one busy sender still appends (and
// shows its events to queries) every few milliseconds.
const maxBatchFrames = 4096

// maxBatchBytes bounds one batch by its frames' bytes too, so the memory
// a batch reserves from the governor before it is read (memoryFor) is
// small and known: 4,096 frames of 64 KiB would be 256 MB a connection.
const maxBatchBytes = 4 << 20

// SyslogListener is a running syslog listener.
type SyslogListener struct {
	s      *Server
	cfg    SyslogConfig
	ln     net.Listener // TCP and TLS
	closer io.Closer    // ln, or the UDP socket
	addr   net.Addr
	done   chan struct{}
	wg     sync.WaitGroup

	mu     sync.Mutex
	conns  map[net.Conn]struct{}
	closed bool

	// wait pauses a connection over the ingest limit for d, false when
	// the listener closed meanwhile; tests replace it to drive the clock.
	wait func(d time.Duration) bool
}

// ListenSyslog listens on the TCP address addr and serves syslog there.
func (s *Server) ListenSyslog(addr string, cfg SyslogConfig) (*SyslogListener, error) {
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return nil, fmt.Errorf("syslog: cannot listen on %s: %w", addr, err)
	}
	l, err := s.ServeSyslog(ln, cfg)
	if err != nil {
		ln.Close()
	}
	return l, err
}

// ServeSyslog serves syslog on ln until Close. It fails at once when the
// node stores nothing (a query node) or the dataset cannot be made.
func (s *Server) ServeSyslog(ln net.Listener, cfg SyslogConfig) (*SyslogListener, error) {
	l, err := s.newSyslogListener(cfg)
	if err != nil {
		return nil, err
	}
	if cfg.TLS != nil {
		ln = tls.NewListener(ln, cfg.TLS)
	}
	l.ln, l.closer, l.addr = ln, ln, ln.Addr()
	l.wg.Add(1)
	go l.accept()
	return l, nil
}

// newSyslogListener checks cfg and makes its dataset, before any socket
// is served.
func (s *Server) newSyslogListener(cfg SyslogConfig) (*SyslogListener, error) {
	if cfg.Dataset == "" {
		cfg.Dataset = "syslog"
	}
	if cfg.Org == "" {
		cfg.Org = s.cfg.OrgID
	}
	if err := s.writable(); err != nil {
		return nil, fmt.Errorf("syslog: this node stores no events (%v): run the listener on the ingest node", err)
	}
	if !s.orgExists(cfg.Org) {
		return nil, fmt.Errorf("syslog: organization %q not found", cfg.Org)
	}
	if err := s.ensureDataset(cfg.Org, cfg.Dataset); err != nil {
		return nil, fmt.Errorf("syslog: dataset %q: %w", cfg.Dataset, err)
	}
	l := &SyslogListener{s: s, cfg: cfg, done: make(chan struct{}), conns: make(map[net.Conn]struct{})}
	l.wait = cfg.wait
	if l.wait == nil {
		l.wait = l.sleep
	}
	return l, nil
}

// ensureDataset creates dataset name in org unless it exists, as POST
// /v2/datasets would (its settings record first).
func (s *Server) ensureDataset(org, name string) error {
	v := s.datasets(org)
	if v.Has(name) {
		return nil
	}
	if err := validDatasetName(name); err != nil {
		return errors.New(asAPIError(err).Message) // not the API's "400: "
	}
	key, _ := v.key(name)
	now := time.Now().UTC()
	rec := meta.DatasetSettings{Name: name, Kind: defaultDatasetKind, Created: now, UpdatedAt: now, MapFields: []string{},
		Description: "syslog messages received by the listener"}
	if err := s.meta.Put(meta.KindDataset, "", key, rec); err != nil {
		return err
	}
	if err := v.Create(name); err != nil {
		s.meta.Delete(meta.KindDataset, "", key)
		return err
	}
	s.forgetSettings(v, name)
	return nil
}

// Addr returns the address the listener listens on.
func (l *SyslogListener) Addr() net.Addr { return l.addr }

// Close stops accepting, closes the open connections and waits until
// each has finished storing the batch it was storing.
func (l *SyslogListener) Close() error {
	l.mu.Lock()
	if l.closed {
		l.mu.Unlock()
		return nil
	}
	l.closed = true
	close(l.done)
	err := l.closer.Close()
	for c := range l.conns {
		c.Close()
	}
	l.mu.Unlock()
	l.wg.Wait()
	return err
}

func (l *SyslogListener) accept() {
	defer l.wg.Done()
	for {
		c, err := l.ln.Accept()
		if err != nil {
			var ne net.Error
			if errors.As(err, &ne) && ne.Timeout() {
				continue
			}
			select {
			case <-l.done:
			default:
				l.logf("accept: %v", err)
			}
			return
		}
		l.mu.Lock()
		if l.closed {
			l.mu.Unlock()
			c.Close()
			return
		}
		l.conns[c] = struct{}{}
		l.wg.Add(1)
		l.mu.Unlock()
		go l.serve(c)
	}
}

// serve reads one connection's frames in batches until it ends.
func (l *SyslogListener) serve(c net.Conn) {
	defer l.wg.Done()
	defer func() {
		l.mu.Lock()
		delete(l.conns, c)
		l.mu.Unlock()
		c.Close()
	}()
	remote := c.RemoteAddr().String()
	if host, _, err := net.SplitHostPort(remote); err == nil {
		remote = host
	}
	r := syslog.NewReader(c, l.cfg.MaxFrame)
	for {
		first, err := r.Next() // waits for the sender, holding no batch
		if err != nil {
			l.ended(remote, err)
			return
		}
		if !l.admit() {
			return
		}
		lease, ok := l.memoryFor()
		if !ok {
			return
		}
		err = l.store(r, first, remote)
		lease.release()
		if err != nil {
			l.ended(remote, err)
			return
		}
	}
}

// store appends one batch: first and every whole frame already read.
func (l *SyslogListener) store(r *syslog.Reader, first []byte, remote string) error {
	start := time.Now()
	now := start.UnixNano()
	var readErr error
	res, err := l.s.datasets(l.cfg.Org).ingestSyslog(l.cfg.Dataset, now, func(bt *syslog.Batch) {
		bt.Add(first, nil, remote, now)
		size := len(first)
		for bt.Frames() < maxBatchFrames && size < maxBatchBytes && r.Ready() {
			f, err := r.Next()
			if err != nil {
				readErr = err
				return
			}
			bt.Add(f, nil, remote, now)
			size += len(f)
		}
	})
	if err != nil {
		return fmt.Errorf("%d messages not stored: %w", res.Ingested+res.Failed, err)
	}
	l.s.countIngest(res, start)
	if res.Failed > 0 {
		l.logf("%s: %d of %d messages not stored, the first: %s",
			remote, res.Failed, res.Ingested+res.Failed, res.Failures[0].Error)
	}
	return readErr
}

// memoryFor reserves, from the memory governor the queries and the HTTP
// ingest doors share, what decoding one batch takes (its bytes bound,
// as the doors reserve per body byte). Short of memory the connection
// is not read until there is room: the sender is held back by TCP's
// flow control, as over the ingest limit. The lease is nil without a
// governor (release is then a no-op); false when the listener closed.
func (l *SyslogListener) memoryFor() (*memLease, bool) {
	g := l.s.gov
	if g == nil {
		return nil, true
	}
	frame := l.cfg.MaxFrame
	if frame <= 0 {
		frame = syslog.MaxFrame
	}
	for {
		lease, err := g.admitIngest(context.Background(), int64(maxBatchBytes+frame)*ingestBytesPerByte)
		if err == nil {
			return lease, true
		}
		if !l.wait(time.Second) {
			return nil, false
		}
	}
}

// admit waits until the org's ingest limit admits one more batch; false
// when the listener closed meanwhile.
func (l *SyslogListener) admit() bool {
	for {
		err := l.s.checkLimit(l.cfg.Org, limitIngest)
		if err == nil {
			return true
		}
		if !l.wait(retryAfter(err)) {
			return false
		}
	}
}

// sleep waits d, or until the listener closes (then false).
func (l *SyslogListener) sleep(d time.Duration) bool {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-l.done:
		return false
	case <-t.C:
		return true
	}
}

// retryAfter reads a refusal's Retry-After (one second when it has none).
func retryAfter(err error) time.Duration {
	var ae *apiError
	if errors.As(err, &ae) {
		for _, h := range ae.Headers {
			if n, perr := strconv.Atoi(h[1]); h[0] == "Retry-After" && perr == nil && n > 0 {
				return time.Duration(n) * time.Second
			}
		}
	}
	return time.Second
}

// ended logs why a connection ended, unless the sender just closed it.
func (l *SyslogListener) ended(remote string, err error) {
	select {
	case <-l.done:
		return
	default:
	}
	if errors.Is(err, io.EOF) || errors.Is(err, net.ErrClosed) {
		return
	}
	l.logf("closing the connection from %s: %v", remote, err)
}

// logf writes one line about the listener to the server's log.
func (l *SyslogListener) logf(format string, args ...any) {
	fmt.Fprintf(l.s.cfg.Log, "aplite: syslog: "+format+"\n", args...)
}
