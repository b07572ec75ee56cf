// Package seaweedtest starts a SeaweedFS server with an S3 gateway on
// loopback for tests and benchmarks that need a real object store. The
// binary comes from scripts/seaweedfs through $APLITE_WEED; without it
// the caller is skipped with a message saying how to run it.
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
	weed := os.Getenv("APLITE_WEED")
	if weed == "" {
		tb.Skip("APLITE_WEED is not set: run through `make cluster` or set APLITE_WEED=$(scripts/seaweedfs); SKIPPED")
	}
	dir := tb.TempDir()
	s3, master, volume, filer := FreeAddr(tb), FreeAddr(tb), FreeAddr(tb), FreeAddr(tb)
	cmd := exec.Command(weed, "server", "-dir="+dir, "-ip=127.0.0.1", "-ip.bind=127.0.0.1", "-s3", "-s3.port="+port(s3),
		"-master.port="+port(master), "-volume.port="+port(volume), "-filer.port="+port(filer), "-master.peers=none")
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
				return endpoint
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
