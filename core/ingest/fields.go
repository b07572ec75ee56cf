package ingest

import (
	"encoding/binary"
	"fmt"

	"github.com/aplite/aplite/core/store"
	"github.com/aplite/aplite/vector"
)

// reserved are the system field names an event may not set; a user field
// of that name is stored as _user_<name>. _rowId is the spelling the legacy
// query result uses for _rowID. _time is only reserved when another field
// is the timestamp field (else it is the timestamp field and consumed).
var reserved = map[string]bool{
	"_rowID": true, "_rowId": true, "_sysTime": true, "_cursor": true,
	"_source": true, "_blockInfo": true,
}

// node is one flattened field path seen in this request. Nodes are
// interned: an event with the same shape as the one before finds each of
// its nodes by following next and comparing one key, with no hashing.
type node struct {
	parent int32 // -1 for a top-level key
	next   int32 // the node that followed this one in the last event, or -1
	// alt is the node that followed before next did, or -1: with an
	// optional field, the two keys that may come after this one.
	alt    int32
	key    string // the last key of the path, unescaped
	path   string // the dotted path as sent
	name   string // the column name: path, renamed when reserved
	isTime bool   // path is the timestamp field
	keep   bool   // a timestamp field that is also stored as a field
	isMap  bool   // a declared map field: objects stay dynamic
	// skip marks a field Options.Keep leaves out: its value is parsed
	// (the input must stay valid) but not stored.
	skip bool
	// plainKey marks a key that needs no escaping in JSON, so its quoted
	// bytes in the input can be compared without unescaping them.
	plainKey bool
	// keyWord and keyMask are keyWord(key), for rawMatch; keyTail is the
	// last seven bytes of a longer key and its closing quote, for
	// objectFast.
	keyWord, keyMask, keyTail uint64
	// counted marks a name that counts against MaxFields.
	counted bool
	// refs are the builder column handles per vector.Type, -1 until used.
	refs [vector.Dynamic + 1]int32
	// setEv is the event that last set this field, setRef the column it
	// used, so a repeated key with another type replaces the earlier value.
	setEv  uint32
	setRef int32
	cache  *strCache
}

// fields is the request's table of interned nodes.
type fields struct {
	nodes   []node
	index   map[string]int32 // path -> node
	pathBuf []byte
	first   int32 // the first node of the last event
	opts    *Options
	// overflow is the sink node every new path maps to once the table
	// holds maxNodes, so a body of endless distinct keys (which MaxFields
	// rejects event by event) cannot grow the table without bound.
	overflow int32
}

// maxNodes bounds the node table: leaves are limited by MaxFields, and
// objects on the way to them rarely outnumber the leaves.
func (f *fields) maxNodes() int { return 4*f.opts.MaxFields + 64 }

func (f *fields) reset(o *Options) {
	clear(f.nodes)
	f.nodes = f.nodes[:0]
	if f.index == nil {
		f.index = make(map[string]int32)
	}
	clear(f.index)
	f.first = -1
	f.opts = o
	f.overflow = -1
}

// child returns the node for key under parent, predicting it from the last
// event's shape: prev is the node before it in this event (-1 at the
// start).
func (f *fields) child(parent, prev int32, key []byte) int32 {
	guess := f.first
	if prev >= 0 {
		guess = f.nodes[prev].next
	}
	if guess >= 0 {
		if n := &f.nodes[guess]; n.parent == parent && n.key == string(key) {
			return guess
		}
	}
	if prev >= 0 {
		if alt := f.nodes[prev].alt; alt >= 0 {
			if n := &f.nodes[alt]; n.parent == parent && n.key == string(key) {
				return alt
			}
		}
	}
	id := f.lookup(parent, key)
	if prev >= 0 {
		p := &f.nodes[prev]
		p.alt, p.next = p.next, id
	} else {
		f.first = id
	}
	return id
}

// rawMatch is the fastest path of child: when the predicted node's key is
// plain and buf[pos:] (an opening quote) holds exactly that key, it returns
// the node without scanning or unescaping the key; else -1.
func (f *fields) rawMatch(parent, prev int32, buf []byte, pos int) int32 {
	guess := f.first
	if prev >= 0 {
		guess = f.nodes[prev].next
	}
	if guess < 0 {
		return -1
	}
	n := &f.nodes[guess]
	if n.parent != parent || !n.plainKey {
		return -1
	}
	if pos+9 <= len(buf) {
		// One word compare settles a key of up to seven bytes (and its
		// closing quote), most keys, without a call to memequal.
		if (binary.LittleEndian.Uint64(buf[pos+1:])^n.keyWord)&n.keyMask != 0 {
			return -1
		}
		if len(n.key) < 8 {
			return guess
		}
	}
	end := pos + 1 + len(n.key)
	if end >= len(buf) || buf[end] != '"' || string(buf[pos+1:end]) != n.key {
		return -1
	}
	return guess
}

// keyWord returns the first eight bytes of key and its closing quote as a
// little-endian word, and the mask of the bytes that hold them.
func keyWord(key string) (word, mask uint64) {
	var b [8]byte
	n := copy(b[:], key+`"`)
	return binary.LittleEndian.Uint64(b[:]), ^uint64(0) >> (64 - 8*n)
}

// lookup finds or creates the node for key under parent by its path.
func (f *fields) lookup(parent int32, key []byte) int32 {
	if parent >= 0 && parent == f.overflow {
		return parent
	}
	p := f.pathBuf[:0]
	if parent >= 0 {
		p = append(p, f.nodes[parent].path...)
		p = append(p, '.')
	}
	p = append(p, key...)
	f.pathBuf = p
	if id, ok := f.index[string(p)]; ok {
		return id
	}
	if len(f.nodes) >= f.maxNodes() {
		return f.sink()
	}
	path := string(p)
	return f.add(parent, path, path[len(path)-len(key):])
}

// sink returns the overflow node, creating it (outside the index) at first
// use; setting a value in it fails the event.
func (f *fields) sink() int32 {
	if f.overflow < 0 {
		n := node{parent: -2, next: -1, alt: -1, setRef: -1}
		for i := range n.refs {
			n.refs[i] = -1
		}
		f.overflow = int32(len(f.nodes))
		f.nodes = append(f.nodes, n)
	}
	return f.overflow
}

// top returns the node for a top-level path (CSV columns, labels).
func (f *fields) top(path string) int32 {
	if id, ok := f.index[path]; ok {
		return id
	}
	if len(f.nodes) >= f.maxNodes() {
		return f.sink()
	}
	return f.add(-1, path, path)
}

func (f *fields) add(parent int32, path, key string) int32 {
	o := f.opts
	n := node{parent: parent, next: -1, alt: -1, key: key, path: path, name: path, plainKey: isPlain(key)}
	n.keyWord, n.keyMask = keyWord(key)
	if len(key) >= 8 {
		n.keyTail = binary.LittleEndian.Uint64([]byte(key[len(key)-7:] + `"`))
	}
	if path == o.TimestampField {
		n.isTime = true
		n.keep = path != "_time"
	}
	if reserved[path] || (path == "_time" && !n.isTime) {
		n.name = "_user_" + path
	}
	n.isMap = o.MapFields[path]
	n.skip = o.Keep != nil && !n.isTime && !o.Keep(path)
	for i := range n.refs {
		n.refs[i] = -1
	}
	n.setRef = -1
	id := int32(len(f.nodes))
	f.nodes = append(f.nodes, n)
	f.index[path] = id
	return id
}

// column returns the builder column for a value of type t in node id,
// enforcing the per-event bookkeeping: a repeated key replaces the earlier
// value even across types, and the name limits are checked the first time
// a name is used. It returns -1 (after failing the event) when the name is
// not acceptable.
func (d *decoder) column(id int32, t vector.Type) int {
	if id == d.f.overflow {
		d.fail(fmt.Sprintf("too many distinct field names in one request (the limit is %d fields)", d.o.MaxFields))
		return -1
	}
	n := &d.f.nodes[id]
	if n.setEv == d.ev {
		r := n.refs[t]
		if r < 0 {
			r = d.newRef(n, id, t)
		}
		if r != n.setRef {
			d.b.Unset(int(n.setRef))
			n.setRef = r
		}
		return int(r)
	}
	if !n.counted {
		if len(n.name) > d.o.MaxFieldNameLen {
			d.fail(fmt.Sprintf("field name %q is %d bytes long, over the limit of %d", clip(n.name), len(n.name), d.o.MaxFieldNameLen))
			return -1
		}
		if d.nfields >= d.o.MaxFields {
			d.fail(fmt.Sprintf("field %q would exceed the limit of %d distinct fields per request", clip(n.name), d.o.MaxFields))
			return -1
		}
		n.counted = true
		d.nfields++
		d.newCounted = append(d.newCounted, id)
	}
	r := n.refs[t]
	if r < 0 {
		r = d.newRef(n, id, t)
	}
	n.setEv = d.ev
	n.setRef = r
	return int(r)
}

// newRef gets a builder handle for node n and type t, remembering it so an
// Abort that drops the column can forget it again.
func (d *decoder) newRef(n *node, id int32, t vector.Type) int32 {
	r := int32(d.b.Ref(store.ColKey{Name: n.name, Type: t}))
	n.refs[t] = r
	d.newRefs = append(d.newRefs, id)
	return r
}

// isPlain reports whether s appears verbatim between quotes in JSON: no
// quote, backslash or control byte.
func isPlain(s string) bool {
	for i := 0; i < len(s); i++ {
		if c := s[i]; c == '"' || c == '\\' || c < 0x20 {
			return false
		}
	}
	return true
}

// clip shortens a name for an error message.
func clip(s string) string {
	if len(s) > 64 {
		return s[:64] + "…"
	}
	return s
}
