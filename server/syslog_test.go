package server

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"errors"
	"fmt"
	"io"
	"math/big"
	"net"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/aplite/aplite/server/meta"
)

// startSyslog serves syslog for ts on a loopback port and stops it with
// the test.
func startSyslog(t *testing.T, ts *testServer, cfg SyslogConfig) *SyslogListener {
	t.Helper()
	l, err := ts.s.ListenSyslog("127.0.0.1:0", cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { l.Close() })
	return l
}

// waitRows polls apl until it answers want (the events of a connection
// are stored after the sender has sent them, with no answer to wait on),
// failing after 10 s.
func (ts *testServer) waitRows(apl string, want []string, fields ...string) {
	ts.t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for {
		got, err := ts.tryRows(apl, fields...) // refused until the first event brings the fields
		if err == nil && slices.Equal(got, want) {
			return
		}
		if time.Now().After(deadline) {
			ts.t.Fatalf("%s (%v):\n%s\nwant:\n%s", apl, err, strings.Join(got, "\n"), strings.Join(want, "\n"))
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// The messages a sender writes over one connection, octet-counted and
// newline framed, RFC 5424 and BSD, are stored one event each in the
// listener's dataset, created for it, with the sender's address; a frame
// that does not parse is skipped and the ones after it are stored.
func TestSyslogListenerTCP(t *testing.T) {
	ts := newTestServer(t)
	l := startSyslog(t, ts, SyslogConfig{Dataset: "sys"})
	c, err := net.Dial("tcp", l.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	msg := `<165>1 2003-10-11T22:14:15.003Z mymachine.example.com evntslog - ID47 [exampleSDID@32473 iut="3" eventSource="Application"] An application event`
	fmt.Fprintf(c, "%d %s", len(msg), msg)
	fmt.Fprint(c, "<38>Nov  8 10:01:02 myhost sshd[4242]: Accepted publickey for root\n")
	fmt.Fprint(c, "<999>1 - - - - - - refused\n")
	fmt.Fprint(c, "plain line from nc\n")
	c.Close()
	ts.waitRows("['sys'] | extend iut = tostring(structuredData['exampleSDID@32473'].iut) | project hostname, application, procid, msgid, severity, facility, message, iut, remoteAddress",
		[]string{
			"application=evntslog,msgid=ID47,severity=notice,facility=local4,message=An application event,iut=3,remoteAddress=127.0.0.1,hostname=mymachine.example.com",
			"application=sshd,procid=4242,severity=info,facility=auth,message=Accepted publickey for root,iut=,remoteAddress=127.0.0.1,hostname=myhost",
			"severity=notice,facility=user,message=plain line from nc,iut=,remoteAddress=127.0.0.1",
		}, "application", "procid", "msgid", "severity", "facility", "message", "iut", "remoteAddress", "hostname")
	if got := ts.rowsOf("['sys'] | where application == 'evntslog' | project _time", "_time"); !slices.Equal(got, []string{"_time=2003-10-11T22:14:15.003Z"}) {
		t.Errorf("_time = %v", got)
	}
	// The listener counts as ingest on /metrics.
	if m := string(ts.do(req{method: "GET", path: "/metrics"}).body); !strings.Contains(m, "aplite_ingest_events_total 3") {
		t.Errorf("metrics lack the 3 events:\n%s", grepLines(m, "ingest"))
	}
}

func grepLines(s, sub string) string {
	var out []string
	for _, l := range strings.Split(s, "\n") {
		if strings.Contains(l, sub) {
			out = append(out, l)
		}
	}
	return strings.Join(out, "\n")
}

// A frame over the size limit closes its connection (a message is never
// stored cut); what came before it is stored.
func TestSyslogListenerFrameTooLong(t *testing.T) {
	ts := newTestServer(t)
	l := startSyslog(t, ts, SyslogConfig{Dataset: "sys", MaxFrame: 1024})
	c, err := net.Dial("tcp", l.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	fmt.Fprint(c, "<13>kept\n2000 <13>"+strings.Repeat("x", 1995)+"<13>after, never read\n")
	c.SetReadDeadline(time.Now().Add(10 * time.Second))
	// Closed with unread bytes in its buffer, the socket may answer RST.
	if n, err := c.Read(make([]byte, 1)); err != io.EOF && !errors.Is(err, syscall.ECONNRESET) {
		t.Fatalf("read from the listener: %d, %v; want the connection closed", n, err)
	}
	ts.waitRows("['sys'] | project message", []string{"message=kept"}, "message")
}

// With a certificate the listener speaks TLS (RFC 5425); a plain TCP
// sender is refused.
func TestSyslogListenerTLS(t *testing.T) {
	ts := newTestServer(t)
	certFile, keyFile := testCert(t, t.TempDir())
	cert, err := tls.LoadX509KeyPair(certFile, keyFile)
	if err != nil {
		t.Fatal(err)
	}
	l := startSyslog(t, ts, SyslogConfig{TLS: &tls.Config{Certificates: []tls.Certificate{cert}}})
	pool := x509.NewCertPool()
	pem, _ := os.ReadFile(certFile)
	pool.AppendCertsFromPEM(pem)
	c, err := tls.Dial("tcp", l.Addr().String(), &tls.Config{RootCAs: pool, ServerName: "localhost"})
	if err != nil {
		t.Fatal(err)
	}
	tlsMsg := "<14>1 - web1 app - - - over tls"
	fmt.Fprintf(c, "%d %s", len(tlsMsg), tlsMsg)
	c.Close()
	plain, err := net.Dial("tcp", l.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	fmt.Fprint(plain, "<14>in clear text\n")
	plain.Close()
	ts.waitRows("['syslog'] | project hostname, message", []string{"hostname=web1,message=over tls"}, "hostname", "message")
}

// testCert writes a self-signed certificate for localhost and 127.0.0.1
// into dir.
func testCert(t *testing.T, dir string) (certFile, keyFile string) {
	t.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	tmpl := &x509.Certificate{SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: "localhost"},
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(24 * time.Hour),
		DNSNames: []string{"localhost"}, IPAddresses: []net.IP{net.ParseIP("127.0.0.1")},
		KeyUsage: x509.KeyUsageDigitalSignature | x509.KeyUsageCertSign, ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth},
		IsCA: true, BasicConstraintsValid: true}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		t.Fatal(err)
	}
	kb, err := x509.MarshalECPrivateKey(key)
	if err != nil {
		t.Fatal(err)
	}
	certFile, keyFile = filepath.Join(dir, "cert.pem"), filepath.Join(dir, "key.pem")
	if err := os.WriteFile(certFile, pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der}), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(keyFile, pem.EncodeToMemory(&pem.Block{Type: "EC PRIVATE KEY", Bytes: kb}), 0o600); err != nil {
		t.Fatal(err)
	}
	return certFile, keyFile
}

// The listener refuses to start where it could not store: an org that
// does not exist, or a dataset name the API would refuse.
func TestSyslogListenerConfig(t *testing.T) {
	ts := newTestServer(t)
	// One request first: a Shutdown that comes before fasthttp's Serve has
	// started never ends it, and this test makes no other request.
	ts.must(req{method: "GET", path: "/health"}, 200)
	if _, err := ts.s.ListenSyslog("127.0.0.1:0", SyslogConfig{Org: "nope"}); err == nil || !strings.Contains(err.Error(), `organization "nope" not found`) {
		t.Errorf("unknown org: %v", err)
	}
	if _, err := ts.s.ListenSyslog("127.0.0.1:0", SyslogConfig{Dataset: "axiom-x"}); err == nil || !strings.Contains(err.Error(), `dataset "axiom-x"`) {
		t.Errorf("reserved dataset name: %v", err)
	}
}

// Over the org's ingest limit the listener stops reading the connection
// until the limit's window admits the next batch: nothing is dropped, the
// sender is held back.
func TestSyslogListenerIngestLimit(t *testing.T) {
	ts := newTestServer(t)
	clock := ts.driveLimits()
	ts.setLicense(func(l *meta.License) { l.IngestLimitPerSecond = 1 })
	waited := make(chan time.Duration)
	resume := make(chan bool)
	stop := make(chan struct{})
	l := startSyslog(t, ts, SyslogConfig{Dataset: "sys", wait: func(d time.Duration) bool {
		select {
		case waited <- d:
			return <-resume
		case <-stop:
			return false
		}
	}})
	t.Cleanup(func() { close(stop) }) // runs before the listener's Close
	c, err := net.Dial("tcp", l.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	fmt.Fprint(c, "<13>first\n")
	ts.waitRows("['sys'] | project message", []string{"message=first"}, "message")
	fmt.Fprint(c, "<13>second\n")
	var d time.Duration
	select {
	case d = <-waited:
	case <-time.After(10 * time.Second):
		t.Fatalf("the listener read past the ingest limit; stored %v", ts.rowsOf("['sys'] | project message", "message"))
	}
	if d < time.Second || d > 2*time.Second {
		t.Errorf("told to wait %v, want the limit's Retry-After (1-2 s)", d)
	}
	if got := ts.rowsOf("['sys'] | project message", "message"); !slices.Equal(got, []string{"message=first"}) {
		t.Fatalf("over the limit, stored %v", got)
	}
	clock.add(d)
	resume <- true
	ts.waitRows("['sys'] | project message", []string{"message=first", "message=second"}, "message")
}

// Over UDP each datagram is one message, stored with its sender.
func TestSyslogListenerUDP(t *testing.T) {
	ts := newTestServer(t)
	l, err := ts.s.ListenSyslogUDP("127.0.0.1:0", SyslogConfig{Dataset: "udp"})
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	c, err := net.Dial("udp", l.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	for _, m := range []string{"<14>1 - h1 app 7 - - five four two four\n", "<11>Nov 28 09:00:00 h2 cron[3]: job failed", "<999>not syslog"} {
		if _, err := c.Write([]byte(m)); err != nil {
			t.Fatal(err)
		}
	}
	ts.waitRows("['udp'] | project hostname, application, severity, message, remoteAddress", []string{
		"hostname=h1,application=app,severity=info,message=five four two four,remoteAddress=127.0.0.1",
		"hostname=h2,application=cron,severity=error,message=job failed,remoteAddress=127.0.0.1",
	}, "hostname", "application", "severity", "message", "remoteAddress")
}

// A syslog batch reserves the memory its decoding takes from the pool
// the queries and the HTTP doors share: while that pool is taken the
// listener does not read the connection (TCP holds the sender back), and
// the message is stored once the memory is back, not dropped.
func TestSyslogListenerWaitsForMemory(t *testing.T) {
	ts := governedServer(t, 64<<20)
	ts.s.gov.ingestWait = 10 * time.Millisecond
	// 10 MB left: room for a query (8 MB) but not for a batch (4 MiB and
	// a frame, three bytes a byte).
	hog, err := ts.s.gov.admit(t.Context(), 54<<20)
	if err != nil {
		t.Fatal(err)
	}
	waited := make(chan struct{}, 1)
	resume := make(chan bool)
	stop := make(chan struct{})
	l := startSyslog(t, ts, SyslogConfig{Dataset: "sys", wait: func(time.Duration) bool {
		select {
		case waited <- struct{}{}:
		default:
		}
		select {
		case ok := <-resume:
			return ok
		case <-stop:
			return false
		}
	}})
	t.Cleanup(func() { close(stop) })
	c, err := net.Dial("tcp", l.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	fmt.Fprint(c, "<13>held\n")
	select {
	case <-waited:
	case <-time.After(10 * time.Second):
		t.Fatalf("the listener read without memory; stored %d", ts.count("sys"))
	}
	if n := ts.count("sys"); n != 0 {
		t.Fatalf("stored %d messages while the pool was taken", n)
	}
	hog.release()
	resume <- true
	ts.waitRows("['sys'] | project message", []string{"message=held"}, "message")
	if n := ts.s.gov.inUse(); n != 0 {
		t.Errorf("%d bytes still held after the batch", n)
	}
}
