package server

import (
	"crypto/tls"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// rsyslogConf reads the file lines (imfile) and forwards each line three
// times: to the plain listener as RFC 5424 octet-counted frames and as
// BSD newline-framed lines (rsyslog's forwarding format), and to the TLS
// listener as RFC 5424 over gtls, checking the listener's certificate.
const rsyslogConf = `global(workDirectory="%[1]s" defaultNetstreamDriverCAFile="%[2]s")
module(load="imfile")
input(type="imfile" file="%[3]s" tag="webapp" facility="local3" severity="warning")
action(type="omfwd" target="127.0.0.1" port="%[4]d" protocol="tcp" tcp_framing="octet-counted" template="RSYSLOG_SyslogProtocol23Format")
action(type="omfwd" target="127.0.0.1" port="%[4]d" protocol="tcp" template="RSYSLOG_ForwardFormat")
action(type="omfwd" target="127.0.0.1" port="%[5]d" protocol="tcp" tcp_framing="octet-counted" template="RSYSLOG_SyslogProtocol23Format"
       streamDriver="gtls" streamDriverMode="1" streamDriverAuthMode="x509/name" streamDriverPermittedPeers="localhost")
`

// rsyslogd, the real sender, forwards lines it reads from a file over TCP
// and TLS to the listeners; every line is stored once per way it was
// sent, parsed. Skipped without rsyslogd (Debian: rsyslog rsyslog-gnutls).
func TestSyslogRsyslog(t *testing.T) {
	bin, err := exec.LookPath("rsyslogd")
	if err != nil {
		if bin, err = exec.LookPath("/usr/sbin/rsyslogd"); err != nil {
			t.Skip("rsyslogd not installed (apt-get install -y rsyslog rsyslog-gnutls): the real-sender syslog test does not run")
		}
	}
	dir := t.TempDir()
	certFile, keyFile := testCert(t, dir)
	cert, err := tls.LoadX509KeyPair(certFile, keyFile)
	if err != nil {
		t.Fatal(err)
	}
	ts := newTestServer(t)
	plain := startSyslog(t, ts, SyslogConfig{Dataset: "rsys"})
	secure := startSyslog(t, ts, SyslogConfig{Dataset: "rsys_tls", TLS: &tls.Config{Certificates: []tls.Certificate{cert}}})

	const n = 200
	var lines strings.Builder
	for i := range n {
		fmt.Fprintf(&lines, "request %d done status=%d\n", i, 200+i%3)
	}
	logFile := filepath.Join(dir, "app.log")
	if err := os.WriteFile(logFile, []byte(lines.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	conf := filepath.Join(dir, "rsyslog.conf")
	body := fmt.Sprintf(rsyslogConf, dir, certFile, logFile, plain.Addr().(*net.TCPAddr).Port, secure.Addr().(*net.TCPAddr).Port)
	if err := os.WriteFile(conf, []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(bin, "-n", "-f", conf, "-i", filepath.Join(dir, "rsyslogd.pid"))
	var out strings.Builder
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() {
		cmd.Process.Signal(syscall.SIGTERM)
		cmd.Wait()
		if t.Failed() {
			t.Logf("rsyslogd said:\n%s", out.String())
		}
	}()
	count := func(ds string, k int) []string {
		return []string{fmt.Sprintf("n=%d,apps=1,hosts=1,sev=%d,fac=%d,msgs=%d", k, k, k, n)}
	}
	const agg = "| summarize n = count(), apps = dcount(application), hosts = dcount(hostname), sev = countif(severity == 'warning'), fac = countif(facility == 'local3'), msgs = dcount(message)"
	fields := []string{"n", "apps", "hosts", "sev", "fac", "msgs"}
	ts.waitRows("['rsys_tls'] "+agg, count("rsys_tls", n), fields...)
	ts.waitRows("['rsys'] "+agg, count("rsys", 2*n), fields...)
	ts.waitRows("['rsys'] | where message == 'request 7 done status=201' | project application, remoteAddress",
		[]string{"application=webapp,remoteAddress=127.0.0.1", "application=webapp,remoteAddress=127.0.0.1"}, "application", "remoteAddress")
}
