//go:build linux

package main

import (
	"bufio"
	"encoding/hex"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
)

// lockHeld probes the flock another process may hold on path (an
// existing file only: nothing is created) and, when one does, returns its
// pid from /proc/locks (0 when it cannot be read).
func lockHeld(path string) (busy bool, pid int) {
	f, err := os.Open(path)
	if err != nil {
		return false, 0
	}
	defer f.Close()
	if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB); err == nil {
		syscall.Flock(int(f.Fd()), syscall.LOCK_UN)
		return false, 0
	}
	var st syscall.Stat_t
	if err := syscall.Fstat(int(f.Fd()), &st); err != nil {
		return true, 0
	}
	return true, flockHolder(st.Ino)
}

// flockHolder finds the pid holding a FLOCK on inode in /proc/locks
// ("1: FLOCK  ADVISORY  WRITE 1234 fd:01:5678 0 EOF"; waiters, "->",
// are skipped).
func flockHolder(inode uint64) int {
	b, err := os.ReadFile("/proc/locks")
	if err != nil {
		return 0
	}
	want := ":" + strconv.FormatUint(inode, 10)
	for _, line := range strings.Split(string(b), "\n") {
		f := strings.Fields(line)
		if len(f) < 6 || f[1] != "FLOCK" || !strings.HasSuffix(f[5], want) {
			continue
		}
		if pid, err := strconv.Atoi(f[4]); err == nil {
			return pid
		}
	}
	return 0
}

// processName is pid's command name, "" when unknown.
func processName(pid int) string {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/comm", pid))
	if err != nil {
		return ""
	}
	return strings.TrimSpace(string(b))
}

// listenerPid finds the process listening on addr's port: the socket's
// inode from /proc/net/tcp{,6}, then the process with that socket open
// (only processes this user may inspect; 0 when none is found).
func listenerPid(addr string) int {
	_, port, err := net.SplitHostPort(addr)
	if err != nil {
		return 0
	}
	p, err := strconv.Atoi(port)
	if err != nil {
		return 0
	}
	inodes := map[string]bool{}
	for _, table := range []string{"/proc/net/tcp", "/proc/net/tcp6"} {
		listeningInodes(table, p, inodes)
	}
	if len(inodes) == 0 {
		return 0
	}
	procs, _ := filepath.Glob("/proc/[0-9]*/fd")
	for _, fdDir := range procs {
		ents, err := os.ReadDir(fdDir)
		if err != nil {
			continue
		}
		for _, e := range ents {
			link, err := os.Readlink(filepath.Join(fdDir, e.Name()))
			if err == nil && strings.HasPrefix(link, "socket:[") && inodes[strings.Trim(link[7:], "[]")] {
				pid, _ := strconv.Atoi(filepath.Base(filepath.Dir(fdDir)))
				return pid
			}
		}
	}
	return 0
}

// listeningInodes adds the inodes of the sockets listening (state 0A) on
// port in one /proc/net table.
func listeningInodes(table string, port int, into map[string]bool) {
	f, err := os.Open(table)
	if err != nil {
		return
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		fl := strings.Fields(sc.Text())
		if len(fl) < 10 || fl[3] != "0A" {
			continue
		}
		i := strings.LastIndexByte(fl[1], ':')
		if i < 0 {
			continue
		}
		b, err := hex.DecodeString(fl[1][i+1:])
		if err == nil && len(b) == 2 && int(b[0])<<8|int(b[1]) == port {
			into[fl[9]] = true
		}
	}
}
