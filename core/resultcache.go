package core

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"slices"
	"strconv"
	"time"
)

// cacheKey returns the result-cache key of a planned query, or "" when
// its answer must not be cached.
//
// The key is a hash of everything the answer depends on: the encoded plan
// (every source, the sides of join and lookup, union legs and let tables,
// with the request's range, cursor and limits folded into their scans and
// stages, variables into constants and virtual fields into extends), the
// parts of every dataset snapshot the query took, by id (unique in the
// process: a dataset deleted and created again under its name has new
// ones), the request options the Output repeats (its range), and the
// datasets the caller may read. Two callers with different permissions
// therefore never share an answer, even where the plan would be the
// same.
//
// Never cached, because no key can stand for the answer: a query
// reading a dataset's in-memory buffer (its parts change in place), one
// whose planner found a call that varies between runs (now, ago, rand,
// cursor_current and ingestion_time when not resolved to a column) or a
// sample (p.noCache), one over streamed files, one that includes the
// ingest node's unflushed events, and a partial answer (Engine.query).
// A query over no dataset is not cached either: there is nothing to save.
func (p *planner) cacheKey() string {
	if p.plan == nil || p.noCache != "" || len(p.snaps) == 0 {
		return ""
	}
	h := sha256.New()
	field := func(b []byte) {
		h.Write(strconv.AppendInt(nil, int64(len(b)), 10))
		h.Write([]byte{':'})
		h.Write(b)
	}
	enc, err := p.plan.Encode()
	if err != nil {
		return ""
	}
	field([]byte("v2"))
	field(enc)
	for _, s := range p.snaps {
		field([]byte(s.Dataset))
		field(strconv.AppendInt(nil, int64(len(s.Parts)), 10))
		for _, part := range s.Parts {
			if !part.Immutable() {
				return ""
			}
			field([]byte(part.ID()))
		}
		for _, d := range s.Damaged {
			field([]byte(d.Name))
		}
	}
	req := p.req
	field([]byte(stamp(req.Start)))
	field([]byte(stamp(req.End)))
	field([]byte(req.Cursor))
	field(strconv.AppendBool(nil, req.IncludeCursor))
	field(strconv.AppendInt(nil, int64(req.DefaultLimit), 10))
	field(strconv.AppendInt(nil, int64(req.MaxRows), 10))
	// Variables are folded into the plan's constants and virtual fields
	// planned as extends; both are keyed as given all the same, so that
	// a definition the plan does not show (a field the query never
	// reads) cannot make two answers share a key by accident.
	vars, err := json.Marshal(req.Variables)
	if err != nil {
		return ""
	}
	field(vars)
	vfields, err := json.Marshal(req.VirtualFields)
	if err != nil {
		return ""
	}
	field(vfields)
	for _, name := range p.permitted() {
		field([]byte(name))
	}
	return hex.EncodeToString(h.Sum(nil))
}

// permitted lists the datasets of the query's catalog the caller may
// read, sorted; ["*"] when the request checks no permission.
func (p *planner) permitted() []string {
	if p.req.Allowed == nil {
		return []string{"*"}
	}
	var out []string
	if cat := p.cat(); cat != nil {
		for _, n := range cat.Names() {
			if p.req.Allowed(n) {
				out = append(out, n)
			}
		}
	}
	slices.Sort(out)
	return append([]string{"allowed"}, out...)
}

// stamp is t for the key: "" when zero (unbounded).
func stamp(t time.Time) string {
	if t.IsZero() {
		return ""
	}
	return t.UTC().Format(time.RFC3339Nano)
}
