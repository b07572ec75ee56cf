package main

import (
	"fmt"
	"io"
	"os"

	"github.com/aplite/aplite/db"
	"github.com/aplite/aplite/parser"
)

// cmdFmt is `aplite fmt`: canonical APL from standard input.
func cmdFmt(args []string) int {
	if wantsHelp(args) {
		fmt.Println("usage: aplite fmt < query.apl\n\nReads APL on standard input and prints it in canonical form; on a syntax error, exit 1 and line:col: message on standard error.")
		return 0
	}
	src, err := io.ReadAll(os.Stdin)
	if err != nil {
		fmt.Fprintln(os.Stderr, "aplite fmt:", err)
		return 1
	}
	q, err := parser.Parse(string(src))
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	fmt.Println(parser.Format(q))
	return 0
}

// cmdFunctions is `aplite functions`: the generated function reference.
func cmdFunctions(args []string) int {
	if wantsHelp(args) {
		fmt.Println("usage: aplite functions\n\nLists the supported scalar functions and aggregations, with a line on each.")
		return 0
	}
	scalars, aggregations := db.FunctionReference()
	for _, f := range scalars {
		fmt.Printf("- `%s` (%s) — %s\n", f.Name, f.Family, f.Doc)
	}
	fmt.Println()
	fmt.Println("## Aggregations")
	fmt.Println()
	for _, s := range aggregations {
		fmt.Printf("- `%s` — %s\n", s.Name, s.Doc)
	}
	return 0
}

// wantsHelp reports a -h, -help or --help among a command's arguments.
func wantsHelp(args []string) bool {
	for _, a := range args {
		if a == "-h" || a == "-help" || a == "--help" {
			return true
		}
	}
	return false
}
