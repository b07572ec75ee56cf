package bench

import (
	"fmt"
	"os"

	"github.com/aplite/aplite/bench/gen"
)

// benchShape is the data every benchmark and test here generates: the
// realistic shape unless APLITE_BENCH_SHAPE names another (tidy gives the
// figures recorded before it existed, wide adds 300 sparse fields).
var benchShape = func() gen.Shape {
	s, err := gen.ParseShape(os.Getenv("APLITE_BENCH_SHAPE"))
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(2)
	}
	return s
}()

// newGen returns a generator of benchShape spreading perDay events over
// each simulated day.
func newGen(seed int64, perDay int) *gen.Generator {
	return gen.NewWith(seed, gen.Options{Shape: benchShape, EventsPerDay: perDay})
}

// eventsPer returns how many events of benchShape make about bytes of
// NDJSON, so bodies keep their size whatever the shape.
func eventsPer(bytes int) int {
	const sample = 4000
	avg := len(gen.NDJSONWith(99, sample, benchShape)) / sample
	return bytes / avg
}
