package main

import (
	"fmt"
	"io"
	"os"

	"github.com/aplite/aplite/core"
	"github.com/aplite/aplite/core/agg"
	"github.com/aplite/aplite/core/fn"
	"github.com/aplite/aplite/parser"
)

// cmdFmt is `aplite fmt`: canonical APL from standard input.
func cmdFmt(args []string) int {
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
	for _, f := range fn.All() {
		fmt.Printf("- `%s` (%s) — %s\n", f.Name, f.Family, f.Doc)
	}
	fmt.Println()
	fmt.Println("## Aggregations")
	fmt.Println()
	for _, s := range agg.All() {
		fmt.Printf("- `%s` — %s\n", s.Name, s.Doc)
	}
	_ = core.ErrMemoryExceeded
	return 0
}
