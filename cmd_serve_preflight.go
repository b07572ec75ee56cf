package main

import (
	"errors"
	"fmt"
	"net"
	"path/filepath"
	"strings"
	"syscall"

	"github.com/aplite/aplite/server/meta"
)

// Before `aplite serve` creates anything (a data directory, a token, a
// lease in a bucket) it makes sure it can run: the data directory is not
// another server's, and the address is free. Either failure names the
// holder when this system can tell (holder_linux.go), at once, instead of
// bbolt's `meta: open data/meta.db: timeout` two seconds later or a
// fresh data directory left behind by a server that then could not
// listen.

// dataDirFiles are the files a running server holds locked: the
// metadata (bbolt) and the storage's LOCK.
var dataDirFiles = []string{meta.FileName, "LOCK"}

// checkDataDir fails when another process holds dir's locks.
func checkDataDir(dir string) error {
	for _, name := range dataDirFiles {
		path := filepath.Join(dir, name)
		busy, pid := lockHeld(path)
		if !busy {
			continue
		}
		who := "another process"
		if pid > 0 {
			who = fmt.Sprintf("another aplite (pid %d)", pid)
			if c := processName(pid); c != "" && !isAplite(c) {
				who = fmt.Sprintf("another process (pid %d, %s)", pid, c)
			}
		}
		return fmt.Errorf("data directory %s is in use by %s: stop it first, or give this server another -data", dir, who)
	}
	return nil
}

// listenFirst binds addr, or explains who holds it: another aplite on
// this very data directory, another aplite, or another program.
func listenFirst(addr, dir string) (net.Listener, error) {
	ln, err := net.Listen("tcp", addr)
	if err == nil {
		return ln, nil
	}
	if !errors.Is(err, syscall.EADDRINUSE) {
		return nil, fmt.Errorf("cannot listen on %s: %w", addr, err)
	}
	msg := fmt.Sprintf("address %s is in use", addr)
	pid := listenerPid(addr)
	switch {
	case pid > 0 && holdsDataDir(pid, dir):
		msg += fmt.Sprintf(" by another aplite (pid %d) serving this data directory (%s): it is already running", pid, dir)
	case pid > 0 && isAplite(processName(pid)):
		msg += fmt.Sprintf(" by another aplite (pid %d)", pid)
	case pid > 0 && processName(pid) != "":
		msg += fmt.Sprintf(" by pid %d (%s)", pid, processName(pid))
	}
	return nil, fmt.Errorf("%s; choose another with -addr (APLITE_ADDR)", msg)
}

// holdsDataDir reports whether pid holds one of dir's locks.
func holdsDataDir(pid int, dir string) bool {
	for _, name := range dataDirFiles {
		if busy, holder := lockHeld(filepath.Join(dir, name)); busy && holder == pid {
			return true
		}
	}
	return false
}

// isAplite tells an aplite binary by its name (aplite, aplite-v1.2, ...;
// not a test binary, aplite.test).
func isAplite(name string) bool {
	return name == "aplite" || strings.HasPrefix(name, "aplite-") || strings.HasPrefix(name, "aplite_")
}
