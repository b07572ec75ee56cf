package ingest

import (
	"errors"

	"github.com/aplite/aplite/core/store"
)

// DecodeHEC reads HEC envelopes straight into rows, in one pass: the
// event object's members are decoded where they lie in the envelope,
// with no validating pass over it first and no NDJSON copy to parse a
// second time (those two were a fifth of the HEC door's cost over plain
// NDJSON). It stores exactly what HECEvents followed by Decode stores:
// the members go through the same decoder functions in the order
// HECEvents writes them (the event's, the fields', the envelope's other
// keys, time as _time), so repeated names, failures and limits come out
// alike. What the direct read does not take it leaves to that general
// path, whose results are the reference: a body HEC refuses (so the
// error, its envelope and offset are HECEvents'), a syntax error, an
// envelope with two "event" or "fields" keys. TestDecodeHECMatchesGeneral
// and FuzzDecodeHEC hold the two to the same rows and answers.

// DecodeHEC decodes a body of HEC envelopes (already decompressed) into
// b, one row per envelope, as Decode decodes the NDJSON HECEvents makes
// of it (opts.Format is ignored), and returns what HECEvents found. A
// body HEC refuses is a *HECError and b must then be discarded. The
// Result's ProcessedBytes is the HEC body's length (plus the labels
// header's), and a failure's "line N" names envelope N-1.
func DecodeHEC(body []byte, opts Options, b *store.RowsBuilder) (HECBatch, Result, error) {
	o := opts.withDefaults()
	o.Format = NDJSON
	if !hecGeneralOnly {
		d := decoders.Get().(*decoder)
		d.init(&o, b, len(body))
		if d.setLabels(o.Labels) == nil {
			if batch, ok := d.hecDecode(body); ok {
				res := Result{Ingested: d.ingested, Failed: d.failed, Failures: d.failures,
					ProcessedBytes: int64(len(body)) + int64(o.LabelsHeaderLen)}
				if res.Failures == nil {
					res.Failures = []Failure{}
				}
				d.release()
				return batch, res, nil
			}
		}
		d.release()
		b.Finish(0) // drops the rows read so far: the builder starts over
	}
	return decodeHECGeneral(body, o, b)
}

// hecGeneralOnly turns the direct read off, so tests can hold it to the
// general path.
var hecGeneralOnly = false

// decodeHECGeneral is DecodeHEC through HECEvents and Decode.
func decodeHECGeneral(body []byte, o Options, b *store.RowsBuilder) (HECBatch, Result, error) {
	o.Format = NDJSON
	nd, batch, err := HECEvents(make([]byte, 0, len(body)+len(body)/4+256), body)
	if err != nil {
		return batch, Result{Failures: []Failure{}}, err
	}
	res, err := Decode(nd, o, b)
	res.ProcessedBytes = int64(len(body)) + int64(o.LabelsHeaderLen)
	return batch, res, err
}

// errHECGeneral is the direct read giving a body up to the general path.
var errHECGeneral = errors.New("ingest: HEC body left to the general path")

// hecEnv is what the direct read keeps of an envelope's members until
// the envelope ends: the ones HECEvents writes after the event's.
type hecEnv struct {
	event, fieldsRead bool
	fields, time      span
	index             span
	other             []span // whole "key":value members
}

// hecDecode reads every envelope of body into a row, false when the body
// must go to the general path (the rows then hold a part of it).
func (d *decoder) hecDecode(body []byte) (HECBatch, bool) {
	var b HECBatch
	var env hecEnv
	d.buf, d.pos = body, 0
	d.start, d.stop = 0, len(body)
	for {
		d.ws()
		if d.pos >= len(body) {
			return b, true
		}
		if body[d.pos] != '{' {
			return b, false
		}
		start := d.pos
		d.begin()
		err := d.hecEnvelope(&env, &b, true)
		if err == errFast {
			// Something objectFast leaves to object: read it again so.
			d.abort()
			d.pos = start
			d.begin()
			err = d.hecEnvelope(&env, &b, false)
		}
		if err != nil {
			d.abort()
			return b, false
		}
		b.Events++
		d.end("line", b.Events)
	}
}

// hecEnvelope decodes the envelope at d.pos into the current event. The
// event object is decoded where it is, and so is "fields" when it comes
// after the event; the other members are only stepped over (validated)
// and decoded after the envelope's end, in HECEvents' order. fast picks
// objectFast for the objects, whose errFast asks for a read with object.
func (d *decoder) hecEnvelope(env *hecEnv, b *HECBatch, fast bool) error {
	*env = hecEnv{other: env.other[:0]}
	d.pos++ // '{'
	for {
		d.ws()
		if d.peek() != '"' {
			return errHECGeneral // "}" of an envelope without event, or a mistake
		}
		keyStart := d.pos
		k, err := d.hecKey()
		if err != nil {
			return errHECGeneral
		}
		which := hecKeyOf(k) // before k's scratch is reused
		if err := d.expect(':', "after object key"); err != nil {
			return errHECGeneral
		}
		d.ws()
		if err := d.hecEnvMember(env, which, keyStart, fast); err != nil {
			return err
		}
		d.ws()
		c := d.peek()
		if c != ',' && c != '}' {
			return errHECGeneral
		}
		d.pos++
		if c == '}' {
			break
		}
	}
	if !env.event {
		return errHECGeneral // HECEventRequired
	}
	return d.hecRest(env, b, fast)
}

// hecEnvMember reads the value at d.pos of the envelope member whose key
// (at keyStart) is which: the event into the row; fields into the row
// when the event came before, else held back with the time and the
// other members (only validated now).
func (d *decoder) hecEnvMember(env *hecEnv, which, keyStart int, fast bool) error {
	v := d.pos
	switch which {
	case hecKeyEvent:
		if env.event {
			return errHECGeneral // the last one counts: not read here
		}
		env.event = true
		return d.hecEvent(fast)
	case hecKeyFields:
		if env.fieldsRead || env.fields.ok() {
			return errHECGeneral
		}
		c := d.peek()
		if c == '{' && env.event {
			env.fieldsRead = true
			return d.hecObject(fast)
		}
		if c != '{' && c != 'n' {
			return errHECGeneral // HECFieldsInvalid
		}
		if d.skipValue() != nil {
			return errHECGeneral
		}
		env.fields = span{v, d.pos}
	default:
		if d.skipValue() != nil {
			return errHECGeneral
		}
		switch which {
		case hecKeyTime:
			env.time = span{v, d.pos}
		case hecKeyIndex:
			if d.buf[v] != '"' {
				return errHECGeneral // HECIncorrectIdx
			}
			env.index = span{v, d.pos}
			fallthrough
		default:
			env.other = append(env.other, span{keyStart, d.pos})
		}
	}
	return nil
}

// hecRest decodes the members held back until the envelope's end, in
// HECEvents' order, and leaves d.pos after the envelope.
func (d *decoder) hecRest(env *hecEnv, b *HECBatch, fast bool) error {
	end := d.pos
	if env.fields.ok() && d.buf[env.fields.start] == '{' {
		d.pos = env.fields.start
		if err := d.hecObject(fast); err != nil {
			return err
		}
	}
	for _, m := range env.other {
		d.pos = m.start
		if err := d.hecMember(); err != nil {
			return errHECGeneral
		}
	}
	if env.time.ok() && !isNull(d.buf[env.time.start:env.time.end]) {
		d.pos = env.time.start
		id := d.f.child(-1, d.prev, []byte("_time"))
		d.prev = id
		if err := d.value(id, 1); err != nil {
			return errHECGeneral
		}
	}
	if env.index.ok() && b.Events == 0 {
		d.pos = env.index.start
		s, err := d.str()
		if err != nil {
			return errHECGeneral
		}
		b.Index = string(s)
	}
	d.pos = end
	return nil
}

// The envelope keys HEC gives a meaning.
const (
	hecKeyOther = iota
	hecKeyEvent
	hecKeyFields
	hecKeyTime
	hecKeyIndex
)

func hecKeyOf(k []byte) int {
	switch string(k) {
	case "event":
		return hecKeyEvent
	case "fields":
		return hecKeyFields
	case "time":
		return hecKeyTime
	case "index":
		return hecKeyIndex
	}
	return hecKeyOther
}

// hecKey reads the key at d.pos: the bytes between the quotes when it
// has no escape (the usual case, without copying), else unescaped.
func (d *decoder) hecKey() ([]byte, error) {
	if j := stop(d.buf, d.pos+1); j < len(d.buf) && d.buf[j] == '"' {
		k := d.buf[d.pos+1 : j]
		d.pos = j + 1
		return k, nil
	}
	return d.str()
}

// hecEvent decodes the event value at d.pos: an object's members into
// the row, any other value as _raw. A blank event (null, "") goes to the
// general path, which refuses it.
func (d *decoder) hecEvent(fast bool) error {
	switch d.peek() {
	case '{':
		return d.hecObject(fast)
	case 'n':
		return errHECGeneral // HECEventBlank, or not JSON
	case '"':
		if d.pos+1 < len(d.buf) && d.buf[d.pos+1] == '"' {
			return errHECGeneral // HECEventBlank
		}
	}
	id := d.f.child(-1, d.prev, []byte("_raw"))
	d.prev = id
	if err := d.value(id, 1); err != nil {
		return errHECGeneral
	}
	return nil
}

// hecObject decodes the object at d.pos as top-level members of the row,
// as the NDJSON line holds them.
func (d *decoder) hecObject(fast bool) error {
	var err error
	if fast {
		_, err = d.objectFast(-1, 1)
		if err != nil {
			return errFast
		}
		return nil
	}
	if _, err = d.object(-1, 1); err != nil {
		return errHECGeneral
	}
	return nil
}

// hecMember decodes one "key":value member at d.pos into the row, as
// object decodes a member of an event.
func (d *decoder) hecMember() error {
	id := d.f.rawMatch(-1, d.prev, d.buf, d.pos)
	if id >= 0 {
		d.pos += len(d.f.nodes[id].key) + 2
	} else {
		key, err := d.str()
		if err != nil {
			return err
		}
		id = d.f.child(-1, d.prev, key)
	}
	d.prev = id
	if err := d.expect(':', "after object key"); err != nil {
		return err
	}
	d.ws()
	return d.value(id, 1)
}

// HECFirstIndex is the batch index HECEvents would find in body, the
// first envelope's "index", read from that envelope alone: a server
// picks the dataset with it before decoding the rest into rows. ok is
// false when the first envelope is one HEC refuses (or there is none);
// the body is then for HECEvents to answer.
func HECFirstIndex(body []byte) (index string, ok bool) {
	d := decoders.Get().(*decoder)
	defer d.release()
	d.buf, d.pos = body, 0
	d.ws()
	start := d.pos
	if start >= len(body) || body[start] != '{' {
		return "", false
	}
	var env envelope
	var b HECBatch
	if d.envelope(&env) != nil || d.checkEnvelope(&env, &b, start) != nil {
		return "", false
	}
	return b.Index, true
}
