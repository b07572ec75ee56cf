package main

import (
	"fmt"
	"io"
	"os"
	"strings"
	"sync"
	"sync/atomic"
	"time"
)

// scanProgress shows, while a query reads files in place, how much of
// them it has read, the rows decoded and the time, on one line of stderr
// that it rewrites: a query over a 5 GB file takes seconds, and a
// terminal user should see it move. It prints only to a terminal, so
// scripts reading stderr see nothing new.
type scanProgress struct {
	status statusLine
	names  string
	total  int64
	mu     sync.Mutex
	parts  []*scanPart
	began  time.Time
}

// statusLine rewrites one line of a terminal every interval with what
// line returns, until done clears it: the progress of loads and of scans
// in place.
type statusLine struct {
	w     io.Writer
	every time.Duration
	stop  chan struct{}
	wg    sync.WaitGroup
}

// stderrIsTerminal reports whether progress lines may go to stderr:
// scripts reading it see nothing new.
func stderrIsTerminal() bool {
	st, err := os.Stderr.Stat()
	return err == nil && st.Mode()&os.ModeCharDevice != 0
}

func (l *statusLine) start(line func() string) {
	l.stop = make(chan struct{})
	l.wg.Go(func() {
		t := time.NewTicker(l.every)
		defer t.Stop()
		for {
			select {
			case <-l.stop:
				fmt.Fprint(l.w, "\r\033[K")
				return
			case <-t.C:
				fmt.Fprintf(l.w, "\r\033[K%s", line())
			}
		}
	})
}

// done clears the line; a line never started is left alone.
func (l *statusLine) done() {
	if l.stop != nil {
		close(l.stop)
		l.wg.Wait()
		l.stop = nil
	}
}

// newScanProgress returns the progress of a query over the files at
// paths, or nil when stderr is not a terminal.
func newScanProgress(paths []string) *scanProgress {
	if !stderrIsTerminal() {
		return nil
	}
	return newScanProgressTo(os.Stderr, 200*time.Millisecond, paths)
}

func newScanProgressTo(w io.Writer, every time.Duration, paths []string) *scanProgress {
	p := &scanProgress{status: statusLine{w: w, every: every}}
	var names []string
	for _, path := range paths {
		if st, err := os.Stat(path); err == nil {
			p.total += st.Size()
		}
		names = append(names, path[strings.LastIndexAny(path, `/\`)+1:])
	}
	p.names = strings.Join(names, ", ")
	return p
}

// scanPart is what one file's stream has read since it was last opened:
// a stream whose types widened is read again from its start.
type scanPart struct {
	bytes, rows atomic.Int64
}

// part returns the counters of one more stream; nil on nil.
func (p *scanProgress) part() *scanPart {
	if p == nil {
		return nil
	}
	sp := &scanPart{}
	p.mu.Lock()
	p.parts = append(p.parts, sp)
	p.mu.Unlock()
	return sp
}

// read counts a chunk of n bytes decoded into rows; safe on nil.
func (sp *scanPart) read(n int64, rows int) {
	if sp != nil {
		sp.bytes.Add(n)
		sp.rows.Add(int64(rows))
	}
}

// restart forgets what the stream read before; safe on nil.
func (sp *scanPart) restart() {
	if sp != nil {
		sp.bytes.Store(0)
		sp.rows.Store(0)
	}
}

// counts are the bytes and rows every stream has read.
func (p *scanProgress) counts() (bytes, rows int64) {
	p.mu.Lock()
	defer p.mu.Unlock()
	for _, sp := range p.parts {
		bytes += sp.bytes.Load()
		rows += sp.rows.Load()
	}
	return bytes, rows
}

// start prints the line every interval until done.
func (p *scanProgress) start() {
	if p == nil {
		return
	}
	p.began = time.Now()
	p.status.start(p.line)
}

func (p *scanProgress) line() string {
	bytes, rows := p.counts()
	return fmt.Sprintf("%s: %s of %s read, %d rows, %.1fs", p.names, mib(bytes), mib(p.total), rows, time.Since(p.began).Seconds())
}

// done clears the line; safe on nil.
func (p *scanProgress) done() {
	if p != nil {
		p.status.done()
	}
}
