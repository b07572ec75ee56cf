//go:build !js

package store

import (
	"bufio"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
)

const crashEnv = "APLITE_STORE_CRASH_DIR"

// crashOpts flush and compact often so kills land in every phase: WAL
// append, block write, WAL removal, compaction swap.
var crashOpts = Options{FlushRows: 3000, FlushInterval: 30 * time.Millisecond, CompactInterval: 40 * time.Millisecond}

// TestCrashChild is the child side of TestCrashRecovery: it appends from
// several goroutines until killed, printing "ack <batch> <rows>" after
// each Append returns.
func TestCrashChild(t *testing.T) {
	dir := os.Getenv(crashEnv)
	if dir == "" {
		t.Skip("only runs as the child of TestCrashRecovery")
	}
	start, _ := strconv.ParseInt(os.Getenv(crashEnv+"_START"), 10, 64)
	db, err := Open(dir, crashOpts)
	if err != nil {
		fmt.Println("error", err)
		os.Exit(2)
	}
	ds, err := db.Get("crash")
	if errors.Is(err, ErrNotFound) {
		ds, err = db.Create("crash")
	}
	if err != nil {
		fmt.Println("error", err)
		os.Exit(2)
	}
	var out sync.Mutex
	var wg sync.WaitGroup
	for g := int64(0); g < 4; g++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			rng := rand.New(rand.NewPCG(uint64(start), uint64(g)))
			for k := int64(0); ; k++ {
				id := start + g*1_000_000 + k
				n := 1 + rng.IntN(40)
				b := NewRowsBuilder()
				for i := 0; i < n; i++ {
					b.Begin()
					b.SetTime(time.Now().UnixNano() - rng.Int64N(1e12))
					b.SetInt("batch", id)
					b.SetInt("i", int64(i))
					b.SetString("pad", strings.Repeat("x", rng.IntN(100)))
					b.End(0)
				}
				if _, err := ds.Append(b.Finish(time.Now().UnixNano())); err != nil {
					fmt.Println("error", err)
					os.Exit(2)
				}
				out.Lock()
				fmt.Printf("ack %d %d\n", id, n)
				out.Unlock()
			}
		}()
	}
	wg.Wait()
}

// TestCrashRecovery kills an appending child with SIGKILL at random
// moments, at least 20 times, and after each restart checks that every
// acknowledged batch is present exactly once and no batch is partial.
func TestCrashRecovery(t *testing.T) {
	if os.Getenv(crashEnv) != "" {
		t.Skip("child")
	}
	dir := t.TempDir()
	acked := map[int64]int{}
	rng := rand.New(rand.NewPCG(42, 7))
	deadline := time.Now().Add(30 * time.Second)
	kills := 0
	for round := 0; kills < 20 || round < 20; round++ {
		if time.Now().After(deadline) {
			t.Fatalf("only %d kills before the time budget ran out", kills)
		}
		start := int64(round+1) * 10_000_000
		cmd := exec.Command(os.Args[0], "-test.run=^TestCrashChild$", "-test.count=1")
		cmd.Env = append(os.Environ(), crashEnv+"="+dir, fmt.Sprintf("%s_START=%d", crashEnv, start))
		stdout, err := cmd.StdoutPipe()
		if err != nil {
			t.Fatal(err)
		}
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		lines := make(chan string, 1024)
		go func() {
			sc := bufio.NewScanner(stdout)
			for sc.Scan() {
				lines <- sc.Text()
			}
			close(lines)
		}()
		// Let it make progress, then kill at a random moment.
		kill := time.After(time.Duration(80+rng.IntN(250)) * time.Millisecond)
		killed := false
	read:
		for {
			select {
			case l, ok := <-lines:
				if !ok {
					break read
				}
				recordAck(t, l, acked)
			case <-kill:
				_ = cmd.Process.Signal(syscall.SIGKILL)
				killed = true
				kill = nil
			}
		}
		err = cmd.Wait()
		if !killed {
			t.Fatalf("child exited on its own: %v", err)
		}
		kills++
		verifyCrashDir(t, dir, acked)
	}
	t.Logf("%d kills, %d acknowledged batches", kills, len(acked))
}

func recordAck(t *testing.T, line string, acked map[int64]int) {
	f := strings.Fields(line)
	if len(f) == 3 && f[0] == "ack" {
		id, _ := strconv.ParseInt(f[1], 10, 64)
		n, _ := strconv.Atoi(f[2])
		acked[id] = n
		return
	}
	if strings.HasPrefix(line, "error") {
		t.Fatalf("child: %s", line)
	}
}

// verifyCrashDir opens the directory and checks every acknowledged batch.
func verifyCrashDir(t *testing.T, dir string, acked map[int64]int) {
	t.Helper()
	db, err := Open(dir, Options{CompactInterval: time.Hour})
	if err != nil {
		t.Fatalf("reopen: %v", err)
	}
	defer db.Close()
	ds, err := db.Get("crash")
	if err != nil {
		if len(acked) == 0 {
			return
		}
		t.Fatal(err)
	}
	s := ds.Snapshot()
	defer s.Release()
	seen := map[int64]map[int64]int{}
	for _, p := range s.Parts {
		bv, err := p.ReadColumn(ColKey{"batch", 2})
		if err != nil {
			t.Fatal(err)
		}
		iv, err := p.ReadColumn(ColKey{"i", 2})
		if err != nil {
			t.Fatal(err)
		}
		for r := 0; r < p.Rows(); r++ {
			b, i := bv.Int(r), iv.Int(r)
			if seen[b] == nil {
				seen[b] = map[int64]int{}
			}
			seen[b][i]++
			if seen[b][i] > 1 {
				t.Fatalf("event %d of batch %d duplicated (part %s)", i, b, p.ID())
			}
		}
	}
	for id, n := range acked {
		if len(seen[id]) != n {
			t.Fatalf("acknowledged batch %d has %d of %d events after restart", id, len(seen[id]), n)
		}
	}
	for id, evs := range seen {
		for i := int64(0); i < int64(len(evs)); i++ {
			if evs[i] != 1 {
				t.Fatalf("batch %d is partial: event %d missing", id, i)
			}
		}
	}
}
