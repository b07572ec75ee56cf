package ingest

import (
	"bytes"
	"math"
	"slices"

	"github.com/aplite/aplite/core/store"
)

// The Elasticsearch bulk body (POST _bulk): NDJSON where each action line
// ({"index":{"_index":"logs","_id":"1"}}) is followed by the document it
// acts on, except delete, which has none. Shippers that speak only
// Elasticsearch (Beats, Logstash, Fluentd, Fluent Bit, syslog-ng) send it;
// the documents are events, decoded exactly as NDJSON lines are.

// BulkOp is the action of one bulk item.
type BulkOp uint8

// The four bulk actions. Only index and create add a document; aplite
// stores events append-only, so update and delete are answered per item
// without changing anything.
const (
	BulkIndex BulkOp = iota
	BulkCreate
	BulkUpdate
	BulkDelete
)

var bulkOpNames = [...]string{"index", "create", "update", "delete"}

// String returns the action's name as a bulk body spells it.
func (o BulkOp) String() string { return bulkOpNames[o] }

// BulkItem is one action of a bulk body and what became of it, in the
// order of the body: the answer lists one entry per item.
type BulkItem struct {
	Op BulkOp
	// Index and ID are the action's _index and _id ("" when it names
	// none), echoed in the answer.
	Index, ID string
	// Row is the document's row among the rows built (the events
	// accepted so far before it), or -1 when no row was built.
	Row int
	// Error says why the item was not stored ("line N: ..."); "" when its
	// document became a row.
	Error string
}

// BulkResult is what DecodeBulk did: the counts of Decode (Failed counts
// the documents that failed, not the update and delete items) and every
// item in order.
type BulkResult struct {
	Result
	Items []BulkItem
}

// DecodeBulk decodes an Elasticsearch bulk body (already decompressed)
// into b: one row per index or create document accepted, under the same
// rules and limits as an NDJSON line (opts.Format is ignored). A document
// that fails fails its item alone; update and delete items fail with a
// message saying nothing was changed. The error is a *SyntaxError, and
// the body must be refused whole as Elasticsearch refuses it, only when
// an action line cannot be read or an action lacks its document line.
func DecodeBulk(body []byte, opts Options, b *store.RowsBuilder) (BulkResult, error) {
	o := opts.withDefaults()
	o.Format = NDJSON
	keep := o.MaxFailures
	o.MaxFailures = math.MaxInt // every failed item needs its message
	d := decoders.Get().(*decoder)
	defer d.release()
	d.init(&o, b, len(body))
	res := BulkResult{Result: Result{ProcessedBytes: int64(len(body)) + int64(o.LabelsHeaderLen)}}
	err := d.setLabels(o.Labels)
	if err == nil {
		res.Items, err = d.decodeBulk(body)
	}
	res.Ingested, res.Failed, res.Failures = d.ingested, d.failed, d.failures
	if len(res.Failures) > keep {
		res.Failures = res.Failures[:keep:keep]
	}
	if res.Failures == nil {
		res.Failures = []Failure{}
	}
	return res, err
}

// decodeBulk reads the action lines of body and the documents after them.
func (d *decoder) decodeBulk(body []byte) ([]BulkItem, error) {
	pos := 0
	if bytes.HasPrefix(body, bom) {
		pos = len(bom)
	}
	d.start, d.stop = pos, len(body)
	var items []BulkItem
	var last []byte     // the last action line read, newline included
	var lastIt BulkItem // what it said
	for line := 1; pos < len(body); line++ {
		var it BulkItem
		if len(last) > 0 && bytes.HasPrefix(body[pos:], last) {
			// Shippers repeat one action line before every document
			// ({"create":{"_index":"fluent-bit"}}): the same bytes say
			// the same thing, and comparing them costs a tenth of
			// reading them.
			it, pos = lastIt, pos+len(last)
		} else {
			end := lineEnd(body, pos)
			if i := lineBlanks(body, pos); i == end {
				pos = end + 1 // a blank line between items
				continue
			}
			it = BulkItem{Row: -1}
			if err := d.bulkAction(body, pos, end, &it, lastIt.Index); err != nil {
				se := err.(*syntaxErr)
				return items, locate(body, se.off, "malformed action line: "+se.msg)
			}
			switch {
			case end < len(body):
				last, lastIt = body[pos:end+1], it
			case it.Op != BulkDelete:
				return items, locate(body, end, "the "+it.Op.String()+" action has no document on the next line")
			}
			pos = end + 1
		}
		if it.Op == BulkDelete {
			it.Error = fmtEvent("line", line, "delete is not supported: events are stored append-only, nothing was deleted")
			items = append(items, it)
			continue
		}
		if pos >= len(body) {
			return items, locate(body, pos-1, "the "+it.Op.String()+" action has no document on the next line")
		}
		line++
		if it.Op == BulkUpdate {
			it.Error = fmtEvent("line", line, "update is not supported: events are stored append-only, nothing was changed")
			pos = lineEnd(body, pos) + 1
		} else {
			it.Row, it.Error, pos = d.bulkDoc(body, pos, line)
		}
		items = append(items, it)
		if len(items) == sampleEvents {
			items = growItems(items, pos-d.start, len(body)-pos)
		}
	}
	return items, nil
}

// growItems sizes items for the rest of the body once the first ones
// show how many bytes an item takes, as reserve does for the columns: the
// answer's items then cost one allocation, not a doubling series (which
// was half the door's allocated bytes).
func growItems(items []BulkItem, used, left int) []BulkItem {
	perItem := max(used/len(items), 16)
	more := left / perItem
	more += more / 16
	return slices.Grow(items, min(more, maxReserve))
}

// lineEnd returns the index of the newline ending the line at pos, or
// len(body) for the last line.
func lineEnd(body []byte, pos int) int {
	if nl := bytes.IndexByte(body[pos:], '\n'); nl >= 0 {
		return pos + nl
	}
	return len(body)
}

// bulkDoc decodes the document line at body[pos:] (line n) as one event,
// as decodeNDJSON decodes a line, and returns its row, or -1 and why it
// failed, and where the next line starts. Like decodeNDJSON it finds the
// line's end only when lineFast cannot take the line: that search was a
// tenth of the door's decode.
func (d *decoder) bulkDoc(body []byte, pos, n int) (row int, msg string, next int) {
	row, failed := d.ingested, d.failed
	if i := lineBlanks(body, pos); i == len(body) || body[i] == '\n' {
		d.failure(fmtEvent("line", n, "the document is empty: index and create take a JSON object on the line after the action"))
		return -1, d.failures[len(d.failures)-1].Error, i + 1
	}
	next, ok := d.lineFast(body, pos, n)
	if !ok {
		end := lineEnd(body, pos)
		next = end + 1
		d.buf, d.pos = body[:end], pos
		d.ws()
		if err := d.line(n); err != nil {
			se := err.(*syntaxErr)
			d.failure(fmtEvent("line", n, "invalid JSON at column "+itoa(se.off-pos+1)+": "+se.msg))
		}
	}
	if next < 0 {
		next = len(body) // lineFast: only blanks were left
	}
	if d.failed == failed {
		return row, "", next
	}
	return -1, d.failures[len(d.failures)-1].Error, next
}

// bulkAction reads the action line body[pos:end] into it: one member
// naming the action, whose object's _index and _id are kept and other
// members (routing, pipeline, _type...) are checked and skipped. prev is
// the _index of an earlier item, whose string an equal one reuses.
func (d *decoder) bulkAction(body []byte, pos, end int, it *BulkItem, prev string) error {
	d.buf, d.pos = body[:end], pos
	if err := d.expect('{', "at the start of the line (an action is an object such as {\"index\":{}})"); err != nil {
		return err
	}
	d.ws()
	at := d.pos
	if d.peek() != '"' {
		return d.errAt(d.pos, "invalid "+describe(d.buf, d.pos)+" looking for the action's name")
	}
	name, err := d.str()
	if err != nil {
		return err
	}
	switch string(name) {
	case "index":
		it.Op = BulkIndex
	case "create":
		it.Op = BulkCreate
	case "update":
		it.Op = BulkUpdate
	case "delete":
		it.Op = BulkDelete
	default:
		return d.errAt(at, "unknown action "+quoteClip(name)+": expected create, delete, index or update")
	}
	if err := d.expect(':', "after the action's name"); err != nil {
		return err
	}
	if err := d.actionMeta(it, prev); err != nil {
		return err
	}
	if err := d.expect('}', "after the action's object (one action per line)"); err != nil {
		return err
	}
	return d.lineEnd()
}

// actionMeta reads the action's object ({"_index":"logs","_id":"1"}).
func (d *decoder) actionMeta(it *BulkItem, prev string) error {
	if err := d.expect('{', "as the action's value (it takes an object such as {\"_index\":\"logs\"})"); err != nil {
		return err
	}
	d.ws()
	if d.peek() == '}' {
		d.pos++
		return nil
	}
	for {
		d.ws()
		if d.peek() != '"' {
			return d.errAt(d.pos, "invalid "+describe(d.buf, d.pos)+" looking for beginning of object key string")
		}
		k, err := d.str()
		if err != nil {
			return err
		}
		field := 0 // 1: _index, 2: _id
		if string(k) == "_index" {
			field = 1
		} else if string(k) == "_id" {
			field = 2
		}
		if err := d.expect(':', "after object key"); err != nil {
			return err
		}
		d.ws()
		if field != 0 && d.peek() == '"' {
			v, err := d.str()
			if err != nil {
				return err
			}
			switch {
			case field == 1 && string(v) == prev:
				it.Index = prev
			case field == 1:
				it.Index = string(v)
			default:
				it.ID = string(v)
			}
		} else if err := d.skip(); err != nil {
			return err
		}
		d.ws()
		switch d.peek() {
		case ',':
			d.pos++
		case '}':
			d.pos++
			return nil
		default:
			return d.errAt(d.pos, "invalid "+describe(d.buf, d.pos)+" after object key:value pair")
		}
	}
}

// quoteClip quotes a name from the input for a message, cut to 64 bytes.
func quoteClip(b []byte) string { return "\"" + clip(string(b)) + "\"" }
