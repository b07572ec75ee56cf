package plan

import (
	"encoding/json"
	"errors"
	"fmt"
)

// Version is the plan format this package reads and writes.
const Version = 1

// RestVersion is the version of a fragment whose scan is Rest: a node
// that reads only Version refuses it rather than scan the wrong parts.
const RestVersion = 2

// ErrUnsupported marks a plan this node cannot run: an unknown version,
// stage kind, expression kind or type. The sender then runs the fragment
// itself.
var ErrUnsupported = errors.New("plan: unsupported")

func unsupported(format string, args ...any) error {
	return fmt.Errorf("%w %s (this node reads plan version %d)", ErrUnsupported, fmt.Sprintf(format, args...), Version)
}

// Scan is the source of a fragment: blocks of one dataset, or a piece of
// a stream read in place.
type Scan struct {
	Dataset string   `json:"dataset"`
	Parts   []string `json:"parts"`
	// Piece, for a stream (a file read in place), names the part of it to
	// read, in the terms of the host that reads the stream; Parts is then
	// empty.
	Piece  string  `json:"piece,omitempty"`
	Schema []Field `json:"schema"`
	// Lo and Hi bound _time to [Lo, Hi) in ns; nil when unbounded.
	Lo *int64 `json:"lo,omitempty"`
	Hi *int64 `json:"hi,omitempty"`
	// Rest turns Parts around: the runner scans every block and buffered
	// batch it holds of the dataset except the blocks Parts names (the
	// sender's catalog). The ingest node answers it with the events a
	// query node cannot see yet. Only in RestVersion fragments.
	Rest bool `json:"rest,omitempty"`
}

// Fragment is what one node runs for another: a scan, the streaming
// stages after it, and last the partial blocking stage, if any.
type Fragment struct {
	V      int     `json:"v"`
	Scan   Scan    `json:"scan"`
	Stages []Stage `json:"stages"`
}

// Check verifies that this node can run f: its version and every kind
// in it. It is the first thing a runner does with a decoded fragment.
func (f *Fragment) Check() error {
	switch {
	case f.V == RestVersion && !f.Scan.Rest:
		return fmt.Errorf("plan: a version %d fragment without a rest scan", f.V)
	case f.V == Version && f.Scan.Rest:
		return fmt.Errorf("plan: a rest scan in a version %d fragment", f.V)
	case f.V != Version && f.V != RestVersion:
		return unsupported("version %d", f.V)
	}
	for i := range f.Stages {
		if err := f.Stages[i].check(); err != nil {
			return err
		}
		if f.Stages[i].Kind.Blocking() && i != len(f.Stages)-1 {
			return fmt.Errorf("plan: blocking stage %s is not the last of the fragment", f.Stages[i].Kind)
		}
	}
	return nil
}

// Encode writes f as JSON; the same fragment always gives the same bytes.
func (f *Fragment) Encode() ([]byte, error) { return json.Marshal(f) }

// Decode reads a fragment and checks it.
func Decode(b []byte) (*Fragment, error) {
	var f Fragment
	if err := decode(b, &f, f.Check); err != nil {
		return nil, err
	}
	return &f, nil
}

// decode unmarshals b into v, then runs check (v's Check).
func decode(b []byte, v any, check func() error) error {
	if err := json.Unmarshal(b, v); err != nil {
		// A later version may change the shape of what follows, and its
		// reader must hear "version", not a JSON type error.
		var head struct {
			V int `json:"v"`
		}
		if json.Unmarshal(b, &head) == nil && head.V != Version && head.V != RestVersion {
			return unsupported("version %d", head.V)
		}
		return err
	}
	return check()
}
