// Package seaweedtest starts a SeaweedFS server with an S3 gateway on
// loopback for tests and benchmarks that need a real object store. The
// binary comes from scripts/seaweedfs through $APLITE_WEED; without it
// the caller is skipped with a message saying how to run it.
// APLITE_WEED_DIR puts the server's volumes under another directory (a
// tmpfs keeps them off the disk the test writes to) and APLITE_WEED_NICE
// runs it under nice with that increment; APLITE_WEED_ARGS adds flags to
// `weed server` (`-debug -debug.port=6061` serves its pprof).
package seaweedtest

import (
	"bytes"
	"net"
	"net/http"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"
)

// Bucket is the bucket Start creates.
const Bucket = "aplite"

// Start runs `weed server` in a temporary directory, waits for its S3
// gateway, creates Bucket and returns the endpoint URL. The server stops
// when the test ends.
func Start(tb testing.TB) string {
	tb.Helper()
	return StartServer(tb).Endpoint
}

// Server is a running SeaweedFS started by StartServer.
type Server struct {
	Endpoint string // the S3 gateway's URL
	Pid      int    // for benchmarks that count the server's CPU
}

// StartServer is Start returning the process too.
func StartServer(tb testing.TB) Server {
	tb.Helper()
	weed := os.Getenv("APLITE_WEED")
	if weed == "" {
		tb.Skip("APLITE_WEED is not set: run through `make cluster` or set APLITE_WEED=$(scripts/seaweedfs); SKIPPED")
	}
	dir := tb.TempDir()
	if d := os.Getenv("APLITE_WEED_DIR"); d != "" {
		var err error
		if dir, err = os.MkdirTemp(d, "weed-"); err != nil {
			tb.Fatal(err)
		}
		tb.Cleanup(func() { os.RemoveAll(dir) })
	}
	s3, master, volume, filer := FreeAddr(tb), FreeAddr(tb), FreeAddr(tb), FreeAddr(tb)
	args := []string{weed}
	if n := os.Getenv("APLITE_WEED_NICE"); n != "" {
		args = append([]string{"nice", "-n", n}, args...)
	}
	cmd := exec.Command(args[0], append(args[1:], "server", "-dir="+dir, "-ip=127.0.0.1", "-ip.bind=127.0.0.1", "-s3", "-s3.port="+port(s3),
		"-master.port="+port(master), "-volume.port="+port(volume), "-filer.port="+port(filer), "-master.peers=none")...)
	if extra := os.Getenv("APLITE_WEED_ARGS"); extra != "" { // e.g. "-debug -debug.port=6061" to profile the store
		cmd.Args = append(cmd.Args, strings.Fields(extra)...)
	}
	var logb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &logb, &logb
	if err := cmd.Start(); err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
	endpoint := "http://" + s3
	deadline := time.Now().Add(60 * time.Second)
	for {
		req, _ := http.NewRequest("PUT", endpoint+"/"+Bucket, nil)
		resp, err := http.DefaultClient.Do(req)
		if err == nil {
			resp.Body.Close()
			if resp.StatusCode == 200 || resp.StatusCode == 409 {
				return Server{Endpoint: endpoint, Pid: cmd.Process.Pid}
			}
		}
		if time.Now().After(deadline) {
			tb.Fatalf("SeaweedFS did not serve S3 within 60s: %v\n%s", err, logb.String())
		}
		time.Sleep(300 * time.Millisecond)
	}
}

// FreeAddr returns a loopback address with a port free at the moment.
func FreeAddr(tb testing.TB) string {
	tb.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		tb.Fatal(err)
	}
	defer ln.Close()
	return ln.Addr().String()
}

func port(addr string) string { return addr[strings.LastIndex(addr, ":")+1:] }
