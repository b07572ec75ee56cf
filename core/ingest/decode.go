package ingest

import (
	"fmt"
	"strconv"
	"sync"
	"time"

	"github.com/aplite/aplite/core/store"
)

// Decode decodes body (already decompressed) in opts.Format into b: one
// row per accepted event. Events that are not objects, whose time cannot be
// parsed or that break a limit are counted in Result.Failed and listed in
// Result.Failures; they never reject the rest of the body. The error is a
// *SyntaxError only when the body as a whole cannot be parsed in its format
// (the server answers 400); b then holds the events decoded before the
// break and should be discarded. Strings in the rows share per-request
// arena chunks (see the package doc).
func Decode(body []byte, opts Options, b *store.RowsBuilder) (Result, error) {
	o := opts.withDefaults()
	d := decoders.Get().(*decoder)
	defer d.release()
	d.init(&o, b, len(body))
	res := Result{ProcessedBytes: int64(len(body)) + int64(o.LabelsHeaderLen)}
	err := d.setLabels(o.Labels)
	if err == nil {
		switch o.Format {
		case JSON:
			err = d.decodeJSON(body)
		case NDJSON:
			err = d.decodeNDJSON(body)
		case CSV:
			err = d.decodeCSV(body)
		default:
			err = fmt.Errorf("unknown ingest format %d", int(o.Format))
		}
	}
	res.Ingested, res.Failed, res.Failures = d.ingested, d.failed, d.failures
	if res.Failures == nil {
		res.Failures = []Failure{}
	}
	return res, err
}

var decoders = sync.Pool{New: func() any { return new(decoder) }}

// decoder is the state of one Decode call. Its buffers are pooled; nothing
// that reaches the rows (strings, arena chunks) is ever reused.
type decoder struct {
	o *Options
	b *store.RowsBuilder
	f fields
	a arena

	buf []byte // the input being scanned (a whole body or one line)
	pos int
	// start and stop delimit the events in the body, for reserve.
	start, stop int
	scratch     []byte // unescaped strings
	stack       []byte // open brackets while skipping a value

	labels []label
	// hours parses the timestamps that share the last one's date and hour.
	hours hourCache

	ev         uint32 // current event number, for node.setEv
	evErr      string // first failure of the current event
	newRefs    []int32
	newCounted []int32
	nfields    int
	prev       int32 // last node of the current event, for shape prediction
	// nl is set when ws steps over a newline; lineOK when lineFast
	// decoded an event (not a blank line).
	nl, lineOK bool

	ingested, failed int
	failures         []Failure
}

func (d *decoder) init(o *Options, b *store.RowsBuilder, n int) {
	d.o, d.b = o, b
	d.f.reset(o)
	d.a.reset(n)
	d.ev, d.nfields, d.ingested, d.failed = 0, 0, 0, 0
	d.failures = nil
}

// release returns d to the pool without anything that points into the
// caller's rows or body.
func (d *decoder) release() {
	d.o, d.b, d.buf, d.failures = nil, nil, nil, nil
	d.a = arena{}
	clear(d.f.nodes)
	d.f.nodes = d.f.nodes[:0]
	clear(d.f.index)
	clear(d.labels)
	d.labels = d.labels[:0]
	decoders.Put(d)
}

// begin starts an event and applies the labels to it.
func (d *decoder) begin() {
	d.ev++
	d.evErr = ""
	d.newRefs = d.newRefs[:0]
	d.newCounted = d.newCounted[:0]
	d.prev = -1
	d.b.Begin()
	for i := range d.labels {
		d.setLabel(&d.labels[i])
	}
}

// sampleEvents is how many events reserve looks at to estimate the rest.
const sampleEvents = 32

// reserve sizes the builder's columns for the events the rest of the body
// probably holds, judging by the bytes the first sampleEvents took, so the
// columns are allocated once instead of doubling their way up.
func (d *decoder) reserve() {
	used := d.pos - d.start
	if used <= 0 || d.stop <= d.pos {
		return
	}
	perEvent := used / sampleEvents
	if perEvent < 8 {
		perEvent = 8
	}
	n := (d.stop - d.pos) / perEvent
	n += n / 16 // a little slack: event sizes vary
	d.b.Reserve(min(n, maxReserve))
}

// maxReserve bounds the estimate, so one odd sample cannot make a huge
// allocation (columns still grow past it when needed).
const maxReserve = 1 << 20

// fail records the first reason the current event is rejected.
func (d *decoder) fail(msg string) {
	if d.evErr == "" {
		d.evErr = msg
	}
}

// end completes the current event: accepted, or aborted and recorded as a
// failure that names where it is (unit n, e.g. "line 3").
func (d *decoder) end(unit string, n int) {
	if d.evErr == "" {
		d.b.End(d.o.Now)
		d.ingested++
		if d.ingested == sampleEvents {
			d.reserve()
		}
		return
	}
	d.abort()
	d.failure(fmt.Sprintf("%s %d: %s", unit, n, d.evErr))
}

// abort discards the current event and forgets the column handles and
// field counts that only it introduced.
func (d *decoder) abort() {
	d.b.Abort()
	ncols := int32(d.b.NumCols())
	for _, id := range d.newRefs {
		n := &d.f.nodes[id]
		for t, r := range n.refs {
			if r >= ncols {
				n.refs[t] = -1
			}
		}
	}
	for _, id := range d.newCounted {
		d.f.nodes[id].counted = false
	}
	d.nfields -= len(d.newCounted)
	d.newRefs = d.newRefs[:0]
	d.newCounted = d.newCounted[:0]
	d.ev++ // values set by the aborted event no longer count as set
}

// failure counts a rejected event.
func (d *decoder) failure(msg string) {
	d.failed++
	if len(d.failures) < d.o.MaxFailures {
		d.failures = append(d.failures, Failure{Timestamp: time.Unix(0, d.o.Now).UTC(), Error: msg})
	}
}

func itoa(n int) string { return strconv.Itoa(n) }
