// Command aplite stores events and answers APL queries: an HTTP server
// compatible with the Axiom API, and a local query tool. See
// ../shared/spec/cli.md for the command-line contract.
package main

import (
	"fmt"
	"io"
	"os"
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
	if len(args) > 0 && len(args[0]) > 0 && args[0][0] != '-' {
		cmd, args = args[0], args[1:]
	}
	switch cmd {
	case "serve":
		return cmdServe(args)
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
	case "version":
		if wantsHelp(args) {
			fmt.Println("usage: aplite version\n\nPrints the version on one line.")
			return 0
		}
		fmt.Println("aplite", version)
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
  query       run APL locally over a data directory or files
  fmt         print APL from standard input in canonical form
  functions   list the supported scalar and aggregation functions
  check       verify every checksum of a stopped server's data directory
  repair      set damaged blocks and WAL records aside
  admin       manage organizations, their members and first tokens
  version     print the version
`)
}
