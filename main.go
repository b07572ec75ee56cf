// Command aplite stores events and answers APL queries: an HTTP server
// compatible with the Axiom API, and a local query tool. See
// ../shared/spec/cli.md for the command-line contract.
package main

import (
	"fmt"
	"io"
	"os"
	"runtime/debug"
)

// version is set at build time with -ldflags "-X main.version=...".
var version = "dev"

func main() {
	os.Exit(run(os.Args[1:]))
}

// run dispatches to a subcommand and returns the exit code.
func run(args []string) int {
	cmd := "serve"
	if len(args) > 0 && (args[0] == "-h" || args[0] == "--help" || args[0] == "-help") {
		usage(os.Stdout)
		return 0
	}
	if len(args) > 0 && (args[0] == "--version" || args[0] == "-version") {
		// Without this the flag went to serve: exit 2 and serve's usage.
		fmt.Println(versionLine())
		return 0
	}
	if len(args) > 0 && len(args[0]) > 0 && args[0][0] != '-' {
		cmd, args = args[0], args[1:]
	}
	switch cmd {
	case "serve":
		if wantsHelp(args) {
			// serve's flag set prints its flags after this, on stderr.
			fmt.Fprint(os.Stderr, serveSynopsis)
		}
		return cmdServe(args)
	case "demo":
		return cmdDemo(args)
	case "query":
		return cmdQuery(args)
	case "fmt":
		return cmdFmt(args)
	case "functions":
		return cmdFunctions(args)
	case "check", "repair":
		return cmdCheck(cmd, args)
	case "admin":
		return cmdAdmin(args)
	case "ingest":
		return cmdIngest(args)
	case "version":
		if wantsHelp(args) {
			fmt.Println("usage: aplite version   (or aplite --version)\n\nPrints the version, and the commit it was built from when known, on one line.")
			return 0
		}
		fmt.Println(versionLine())
		return 0
	case "help":
		usage(os.Stdout)
		return 0
	}
	fmt.Fprintf(os.Stderr, "aplite: unknown command %q\n", cmd)
	usage(os.Stderr)
	return 2
}

// usage lists the commands; `aplite COMMAND -h` shows a command's flags.
func usage(w io.Writer) {
	fmt.Fprint(w, `usage: aplite [command] [flags]   (aplite COMMAND -h for its flags)

commands:
  serve       serve the HTTP API (the default)
  demo        serve with a dataset of generated HTTP logs of the last two hours
  query       run APL locally over a data directory or files
  fmt         print APL from standard input in canonical form
  functions   list the supported scalar and aggregation functions
  check       verify every checksum of a stopped server's data directory
  repair      set damaged blocks and WAL records aside
  admin       manage organizations, their members and first tokens
  ingest      send NDJSON, JSON or CSV files to a server in batches
  version     print the version (also --version)
`)
}

// serveSynopsis heads `aplite serve -h`, which was a bare flag dump.
const serveSynopsis = `usage: aplite [serve] [flags]

Serves the Axiom HTTP API, the web console (http://ADDR/) and /metrics. With no
token configured the first start creates one, prints it once and says where it
is kept. SIGINT or SIGTERM: stop accepting, finish requests, flush, exit 0.
A flag that names an environment variable (APLITE_...) may come from it instead.

examples:
  aplite serve                                  # 127.0.0.1:8080, data in ./data
  aplite serve -addr 0.0.0.0:8080 -data /var/lib/aplite -token xapt-...
  aplite serve -max-body 1G -query-timeout 5m

`

// versionLine is the version and, when the binary was built from a git
// checkout, the commit (cli.md: "and the commit it was built from, when
// known").
func versionLine() string {
	line := "aplite " + version
	info, ok := debug.ReadBuildInfo()
	if !ok {
		return line
	}
	var rev, dirty string
	for _, s := range info.Settings {
		switch s.Key {
		case "vcs.revision":
			rev = s.Value
		case "vcs.modified":
			if s.Value == "true" {
				dirty = "+dirty"
			}
		}
	}
	if len(rev) > 12 {
		rev = rev[:12]
	}
	if rev != "" {
		line += " (commit " + rev + dirty + ")"
	}
	return line
}
