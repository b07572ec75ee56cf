package main

import (
	"debug/elf"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// The systemd unit passes `systemd-analyze verify` (with its ExecStart
// pointed at a binary that exists here).
func TestSystemdUnitVerifies(t *testing.T) {
	sa, err := exec.LookPath("systemd-analyze")
	if err != nil {
		t.Skip("systemd-analyze is not installed (apt-get install systemd): deploy/aplite.service not verified")
	}
	unit, err := os.ReadFile("deploy/aplite.service")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(unit), "ExecStart=/usr/local/bin/aplite serve") {
		t.Fatal("deploy/aplite.service does not start /usr/local/bin/aplite serve")
	}
	path := filepath.Join(t.TempDir(), "aplite.service")
	text := strings.ReplaceAll(string(unit), "/usr/local/bin/aplite", bin)
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	out, err := exec.Command(sa, "verify", path).CombinedOutput()
	if err != nil || strings.Contains(string(out), "aplite.service") {
		t.Fatalf("systemd-analyze verify: %v\n%s", err, out)
	}
	for _, opt := range []string{"DynamicUser=yes", "NoNewPrivileges=yes", "ProtectSystem=strict", "CapabilityBoundingSet=\n", "SystemCallFilter=@system-service", "KillSignal=SIGTERM"} {
		if !strings.Contains(text, opt) {
			t.Errorf("the unit lacks %q", strings.TrimSpace(opt))
		}
	}
}

// dockerBuildLine is the Dockerfile's `RUN CGO_ENABLED=0 go build ...`.
var dockerBuildLine = regexp.MustCompile(`(?m)^RUN (CGO_ENABLED=0 go build .*)$`)

// The Dockerfile builds a static binary as a non-root image of the Go the
// module asks for. No Docker engine is needed: its build line is run as a
// plain `go build` with the same flags, when APLITE_DEPLOY_BUILD=1 (make
// deploy-check; a cold build with -trimpath takes minutes on two cores),
// and the binary must be static and run.
func TestDockerfileBuildsAStaticNonRootImage(t *testing.T) {
	df, err := os.ReadFile("deploy/Dockerfile")
	if err != nil {
		t.Fatal(err)
	}
	text := string(df)
	mod, _ := os.ReadFile("go.mod")
	goVer := regexp.MustCompile(`(?m)^go (\d+\.\d+)`).FindStringSubmatch(string(mod))
	if goVer == nil || !strings.Contains(text, "FROM golang:"+goVer[1]+"-") {
		t.Errorf("the build stage is not golang:%v (go.mod's go)", goVer)
	}
	final := text[strings.LastIndex(text, "\nFROM "):]
	user := regexp.MustCompile(`(?m)^USER (\S+)`).FindStringSubmatch(final)
	if user == nil || strings.HasPrefix(user[1], "0") || strings.HasPrefix(user[1], "root") {
		t.Errorf("the final stage runs as %v, want a non-root USER", user)
	}
	m := dockerBuildLine.FindStringSubmatch(text)
	if m == nil || !strings.Contains(m[1], "-o /out/aplite .") {
		t.Fatalf("no `RUN CGO_ENABLED=0 go build ... -o /out/aplite .` line in deploy/Dockerfile")
	}
	if os.Getenv("APLITE_DEPLOY_BUILD") != "1" {
		t.Skip("the Dockerfile's go build line is built by make deploy-check (APLITE_DEPLOY_BUILD=1)")
	}
	out := filepath.Join(t.TempDir(), "aplite")
	line := strings.NewReplacer("${VERSION}", "v-deploy-test", "/out/aplite", out).Replace(m[1])
	if b, err := exec.Command("sh", "-c", line).CombinedOutput(); err != nil {
		t.Fatalf("%s: %v\n%s", line, err, b)
	}
	f, err := elf.Open(out)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	for _, p := range f.Progs {
		if p.Type == elf.PT_INTERP {
			t.Fatal("the binary asks for a dynamic loader: not static, it would not run on distroless/static")
		}
	}
	if v, err := exec.Command(out, "version").Output(); err != nil || !strings.Contains(string(v), "v-deploy-test") {
		t.Fatalf("built binary: version %q, %v", v, err)
	}
}
