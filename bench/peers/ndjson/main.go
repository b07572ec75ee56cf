// Command ndjson writes generated events (bench/gen) as NDJSON to stdout,
// so the side-by-side harness feeds aplite, DuckDB and chDB the very same
// bytes.
//
//	go run ./bench/peers/ndjson -n 1000000 -shape real > events.ndjson
package main

import (
	"bufio"
	"flag"
	"fmt"
	"os"

	"github.com/aplite/aplite/bench/gen"
)

func main() {
	n := flag.Int("n", 1_000_000, "number of events (spread over one simulated day)")
	shape := flag.String("shape", "real", "data shape: tidy, real or wide")
	seed := flag.Int64("seed", 1, "generator seed")
	flag.Parse()
	s, err := gen.ParseShape(*shape)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(2)
	}
	w := bufio.NewWriterSize(os.Stdout, 1<<20)
	g := gen.NewWith(*seed, gen.Options{Shape: s, EventsPerDay: *n})
	buf := make([]byte, 0, 8<<20)
	for done := 0; done < *n; done += 10_000 {
		buf = g.AppendNDJSON(buf[:0], min(10_000, *n-done))
		if _, err := w.Write(buf); err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
	}
	if err := w.Flush(); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
}
