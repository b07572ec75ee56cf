// Command aplite stores events and answers APL queries: an HTTP server
// compatible with the Axiom API, and a local query tool. See
// ../shared/spec/cli.md for the command-line contract.
package main

import (
	"fmt"
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
	case "version":
		fmt.Println("aplite", version)
		return 0
	case "help", "-h", "--help":
		usage()
		return 0
	}
	fmt.Fprintf(os.Stderr, "aplite: unknown command %q\n", cmd)
	usage()
	return 2
}

func usage() {
	fmt.Fprint(os.Stderr, `usage: aplite [command] [flags]

commands:
  serve       serve the HTTP API (the default)
  query       run APL locally over a data directory or files
  fmt         print APL from standard input in canonical form
  functions   list the supported scalar and aggregation functions
  check       verify every checksum of a stopped server's data directory
  repair      set damaged blocks and WAL records aside
  version     print the version
`)
}
