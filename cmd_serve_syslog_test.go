package main

import (
	"strings"
	"testing"
)

// serve refuses a syslog listener it could not run, naming the flag at
// fault, before it serves anything.
func TestServeSyslogFlagErrors(t *testing.T) {
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"-syslog-cert", "c.pem", "-syslog-key", "k.pem"}, "-syslog-cert and -syslog-key need -syslog ADDR"},
		{[]string{"-syslog", "127.0.0.1:0", "-syslog-cert", "missing.pem", "-syslog-key", "missing.pem"}, "-syslog-cert/-syslog-key: open missing.pem"},
		{[]string{"-syslog", "127.0.0.1:0", "-syslog-org", "nope"}, `aplite: syslog: organization "nope" not found`},
	} {
		args := append([]string{"serve", "-addr", "127.0.0.1:0", "-data", t.TempDir(), "-token", "xapt-cli-test"}, c.args...)
		_, stderr, code := aplite(t, "", args...)
		if code == 0 || !strings.Contains(stderr, c.want) {
			t.Errorf("%v: exit %d, stderr %q, want %q", c.args, code, stderr, c.want)
		}
	}
}
