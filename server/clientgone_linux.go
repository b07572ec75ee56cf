package server

import (
	"errors"
	"net"
	"syscall"
)

// connProbe returns a function that reports whether conn's peer has
// closed or reset the connection, by a non-blocking MSG_PEEK read of one
// byte: 0 bytes is an orderly close, ECONNRESET a reset, EAGAIN an idle
// open connection, and data (a pipelined request) is left where it is.
func connProbe(conn net.Conn) func() bool {
	sc, ok := conn.(syscall.Conn)
	if !ok {
		return nil
	}
	raw, err := sc.SyscallConn()
	if err != nil {
		return nil
	}
	return func() bool {
		gone := false
		var buf [1]byte
		_ = raw.Read(func(fd uintptr) bool {
			n, _, err := syscall.Recvfrom(int(fd), buf[:], syscall.MSG_PEEK|syscall.MSG_DONTWAIT)
			switch {
			case err == nil && n == 0:
				gone = true
			case err != nil && !errors.Is(err, syscall.EAGAIN) && !errors.Is(err, syscall.EINTR):
				gone = true
			}
			return true // never wait for readiness: this is a poll
		})
		return gone
	}
}
