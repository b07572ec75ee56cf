package server

import (
	"errors"
	"fmt"
	"net"
	"os"
	"time"

	"github.com/aplite/aplite/db/syslog"
)

// Syslog over UDP (RFC 5426): each datagram is one message. UDP has no
// flow control, so nothing pushes back on a sender: over the org's ingest
// limit, or faster than the listener stores, datagrams wait in the
// socket's receive buffer and the kernel drops what does not fit. Use TCP
// where losing messages matters.

// udpDrain is how long a UDP batch waits for one more datagram before it
// is stored: only what has already arrived joins the batch.
const udpDrain = time.Millisecond

// ListenSyslogUDP listens on the UDP address addr and stores each
// datagram as one message.
func (s *Server) ListenSyslogUDP(addr string, cfg SyslogConfig) (*SyslogListener, error) {
	l, err := s.newSyslogListener(cfg)
	if err != nil {
		return nil, err
	}
	pc, err := net.ListenPacket("udp", addr)
	if err != nil {
		return nil, fmt.Errorf("syslog: cannot listen on udp %s: %w", addr, err)
	}
	l.closer, l.addr = pc, pc.LocalAddr()
	l.wg.Add(1)
	go l.serveUDP(pc)
	return l, nil
}

// serveUDP stores datagrams in batches until the socket closes.
func (l *SyslogListener) serveUDP(pc net.PacketConn) {
	defer l.wg.Done()
	buf := make([]byte, 64<<10) // the largest UDP payload
	for {
		n, from, err := pc.ReadFrom(buf)
		if err != nil {
			l.ended("udp", err)
			return
		}
		if !l.admit() {
			return
		}
		lease, ok := l.memoryFor()
		if !ok {
			return
		}
		start := time.Now()
		now := start.UnixNano()
		var readErr error
		res, err := l.s.datasets(l.cfg.Org).ingestSyslog(l.cfg.Dataset, now, func(bt *syslog.Batch) {
			bt.Add(buf[:n], nil, hostOf(from), now) // parsed (copied) before buf is read into again
			size := n
			for bt.Frames() < maxBatchFrames && size < maxBatchBytes {
				pc.SetReadDeadline(time.Now().Add(udpDrain))
				m, from, err := pc.ReadFrom(buf)
				if err != nil {
					readErr = err
					break
				}
				bt.Add(buf[:m], nil, hostOf(from), now)
				size += m
			}
			pc.SetReadDeadline(time.Time{})
		})
		lease.release()
		switch {
		case err != nil:
			l.logf("udp: %d messages not stored: %v", res.Ingested+res.Failed, err)
		default:
			l.s.countIngest(res, start)
			if res.Failed > 0 {
				l.logf("udp: %d of %d messages not stored, the first: %s", res.Failed, res.Ingested+res.Failed, res.Failures[0].Error)
			}
		}
		if readErr != nil && !errors.Is(readErr, os.ErrDeadlineExceeded) {
			l.ended("udp", readErr)
			return
		}
	}
}

// hostOf returns a sender's address without its port.
func hostOf(a net.Addr) string {
	if ua, ok := a.(*net.UDPAddr); ok {
		return ua.IP.String()
	}
	return a.String()
}
