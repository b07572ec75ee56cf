package gen

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math/rand/v2"

	"github.com/aplite/aplite/vector"
)

// Shape chooses which fields a Generator writes and how.
type Shape string

const (
	// Tidy is the original access-log shape: eleven fixed fields, every
	// float written with a decimal point. Figures recorded before the
	// realistic shape existed were measured on it.
	Tidy Shape = "tidy"
	// Real is Tidy's events (the same draws, so the same answers to the
	// reference queries) written the way real shippers write them: whole
	// floats without a decimal point (about 0.1% of req_duration_ms),
	// plus a free-text message, sparse and nested fields, arrays, a field
	// that changes type mid-stream and high-cardinality strings.
	Real Shape = "real"
	// Wide is Real plus about six of 300 sparse top-level fields per
	// event, of four types.
	Wide Shape = "wide"
)

// ParseShape reads a shape name; the empty string is Real.
func ParseShape(s string) (Shape, error) {
	switch Shape(s) {
	case "", Real:
		return Real, nil
	case Tidy, Wide:
		return Shape(s), nil
	}
	return "", fmt.Errorf("gen: unknown shape %q (want tidy, real or wide)", s)
}

// Options configure NewWith.
type Options struct {
	// Shape is the field layout; the zero value is Tidy, what New gives.
	Shape Shape
	// EventsPerDay is how many events fill one simulated day; 0 means
	// DefaultEventsPerDay.
	EventsPerDay int
}

// NewWith returns a generator seeded with seed that writes events of the
// given shape. The base fields of an event do not depend on the shape:
// the extra fields come from a second random stream.
func NewWith(seed int64, o Options) *Generator {
	g := New(seed).SetEventsPerDay(o.EventsPerDay)
	switch o.Shape {
	case "", Tidy:
	case Real, Wide:
		g.shape = o.Shape
		g.x = rand.New(rand.NewPCG(uint64(seed)^0x7265616c, 0x6d657373616765))
		g.xt = sharedExtraTables()
		// s = 1.07 gives log text its long tail: the top hundred words
		// make most of it, thousands appear a handful of times.
		g.words = rand.NewZipf(g.x, 1.07, 2, vocabSize-1)
	default:
		panic(fmt.Sprintf("gen: unknown shape %q", o.Shape))
	}
	return g
}

// NDJSONWith is NDJSON for a shape.
func NDJSONWith(seed int64, n int, s Shape) []byte {
	g := NewWith(seed, Options{Shape: s, EventsPerDay: n})
	return g.AppendNDJSON(make([]byte, 0, n*700), n)
}

// decodeLine is the value form of one generated line as Event documents
// it: numbers written as integers become int64, others float64, objects
// maps and arrays slices.
func decodeLine(line []byte) map[string]any {
	d := json.NewDecoder(bytes.NewReader(line))
	d.UseNumber()
	var m map[string]any
	if err := d.Decode(&m); err != nil {
		panic("gen: generated line is not JSON: " + err.Error())
	}
	return vector.JSONNumbers(m).(map[string]any)
}
