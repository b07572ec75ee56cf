//go:build !linux

package server

import "net"

// connProbe cannot look at a connection without consuming it here; a
// query then runs until it ends or reaches its deadline.
func connProbe(net.Conn) func() bool { return nil }
