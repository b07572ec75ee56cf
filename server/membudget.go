package server

import (
	"bufio"
	"os"
	"path"
	"path/filepath"
	"strconv"
	"strings"
)

// DefaultBudgetShare is the part of the memory the process may use that
// -memory-budget takes when it is not set: the rest is the margin for
// what no budget counts (goroutine stacks, the collector's own work,
// the kernel's page tables and socket buffers).
const DefaultBudgetShare = 0.6

// DefaultMemoryBudget is DefaultBudgetShare of the memory the process may
// use: its memory cgroup's limit, the tightest of the cgroup and its
// parents (v2 memory.max or v1 memory.limit_in_bytes), or without one the
// host's memory. from says which, for the start-up notice; 0 when neither
// can be read (not Linux).
func DefaultMemoryBudget() (budget int64, from string) {
	self, _ := os.ReadFile("/proc/self/cgroup")
	limit, from := machineMemory("/", string(self))
	return int64(float64(limit) * DefaultBudgetShare), from
}

// machineMemory reads the limit under root (a test's fake file system).
func machineMemory(root, selfCgroup string) (int64, string) {
	if n := cgroupLimit(root, selfCgroup); n > 0 {
		return n, "the memory cgroup's limit"
	}
	if n := hostMemory(filepath.Join(root, "proc/meminfo")); n > 0 {
		return n, "the host's memory"
	}
	return 0, ""
}

// cgroupLimit is the tightest memory limit on the path of the process's
// cgroup, v1 or v2 (0: none). A cgroup namespace shows the process at
// "/" while the mount is its own cgroup; a path the mount does not show
// is read from the mount's top for the same reason.
func cgroupLimit(root, selfCgroup string) int64 {
	best := int64(0)
	for _, line := range strings.Split(selfCgroup, "\n") {
		parts := strings.SplitN(line, ":", 3)
		if len(parts) != 3 {
			continue
		}
		var mounts []string
		var file string
		switch {
		case parts[0] == "0" && parts[1] == "":
			mounts, file = []string{"sys/fs/cgroup", "sys/fs/cgroup/unified"}, "memory.max"
		case hasController(parts[1], "memory"):
			mounts, file = []string{"sys/fs/cgroup/memory"}, "memory.limit_in_bytes"
		default:
			continue
		}
		for _, m := range mounts {
			if n := limitOnPath(filepath.Join(root, m), parts[2], file); n > 0 && (best == 0 || n < best) {
				best = n
			}
		}
	}
	return best
}

func hasController(list, name string) bool {
	for _, c := range strings.Split(list, ",") {
		if c == name {
			return true
		}
	}
	return false
}

// limitOnPath is the least limit in file from cgroup p up to the mount.
func limitOnPath(mount, p, file string) int64 {
	if _, err := os.Stat(filepath.Join(mount, p)); err != nil {
		p = "/"
	}
	best := int64(0)
	for p = path.Clean("/" + p); ; p = path.Dir(p) {
		if n := readLimit(filepath.Join(mount, p, file)); n > 0 && (best == 0 || n < best) {
			best = n
		}
		if p == "/" {
			return best
		}
	}
}

// readLimit reads a cgroup limit file; "max" and v1's "no limit" (a
// page-rounded 2^63-1) are 0.
func readLimit(file string) int64 {
	b, err := os.ReadFile(file)
	if err != nil {
		return 0
	}
	n, err := strconv.ParseInt(strings.TrimSpace(string(b)), 10, 64)
	if err != nil || n <= 0 || n >= 1<<62 {
		return 0
	}
	return n
}

// hostMemory is MemTotal of /proc/meminfo in bytes (0: unknown).
func hostMemory(meminfo string) int64 {
	f, err := os.Open(meminfo)
	if err != nil {
		return 0
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if rest, ok := strings.CutPrefix(sc.Text(), "MemTotal:"); ok {
			kb, err := strconv.ParseInt(strings.TrimSuffix(strings.TrimSpace(rest), " kB"), 10, 64)
			if err == nil {
				return kb << 10
			}
		}
	}
	return 0
}
