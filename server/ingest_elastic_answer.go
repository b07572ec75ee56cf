package server

import (
	"crypto/rand"
	"encoding/base64"
	"encoding/binary"
	"net/http"
	"strconv"
	"sync/atomic"
	"time"

	"github.com/aplite/aplite/db"
)

// The answers of the Elasticsearch door, in Elasticsearch's shapes: the
// bulk answer a shipper reads item by item, and the few probes it makes
// before sending.

// appendBulkAnswer appends the bulk answer for res to dst: took, errors,
// and one item per action in the body's order. A stored document is 201
// "created"; a document that failed to decode or that the field cap
// refused is 400, as are update and delete, which change nothing here.
// 400 items are not retried by shippers: sending them again would fail
// the same way. Items without an _id get one, as Elasticsearch gives.
func appendBulkAnswer(dst []byte, index string, res *db.BulkResult, took time.Duration) []byte {
	refused := res.Refused
	capMsg := func(k int) string { // the field cap's reason for its k-th refusal
		if i := len(res.Failures) - len(res.Refused) + k; i >= 0 && i < len(res.Failures) {
			return res.Failures[i].Error
		}
		return "event refused: its new fields would take the dataset past its limit of fields (maxFields)"
	}
	ids := newBulkIDs(res.Items)
	failed := false
	for _, it := range res.Items {
		failed = failed || it.Error != ""
	}
	failed = failed || len(refused) > 0
	dst = append(dst, `{"took":`...)
	dst = strconv.AppendInt(dst, took.Milliseconds(), 10)
	dst = append(dst, `,"errors":`...)
	dst = strconv.AppendBool(dst, failed)
	dst = append(dst, `,"items":[`...)
	k := 0 // refusals passed
	var head struct {
		op    db.BulkOp
		index string
		text  []byte // the item's opening up to its _id's value
		// created is a whole stored item with a generated _id, its last
		// 12 characters (idTail) left to fill: most items are that, and
		// one copy of it is a third of building them piece by piece.
		created []byte
	}
	for i, it := range res.Items {
		if i > 0 {
			dst = append(dst, ',')
		}
		msg, kind := it.Error, "mapper_parsing_exception"
		if it.Op == db.BulkUpdate || it.Op == db.BulkDelete {
			kind = "illegal_argument_exception"
		}
		for k < len(refused) && refused[k] < it.Row {
			k++
		}
		if k < len(refused) && refused[k] == it.Row && it.Row >= 0 {
			msg, kind = capMsg(k), "illegal_argument_exception"
		}
		idx := it.Index
		if idx == "" {
			idx = index
		}
		if it.Op != head.op || idx != head.index || head.text == nil {
			head.op, head.index = it.Op, idx
			head.text = append(head.text[:0], `{"`...)
			head.text = append(head.text, it.Op.String()...)
			head.text = append(head.text, `":{"_index":`...)
			head.text = appendJSONStr(head.text, idx)
			head.text = append(head.text, `,"_id":`...)
			head.created = append(append(head.created[:0], head.text...), `"`+ids.head+`____________"`+createdTail...)
		}
		if msg == "" && it.ID == "" {
			at := len(dst) + len(head.text) + 1 + len(ids.head)
			dst = append(dst, head.created...)
			ids.putTail(dst[at : at+idTail])
			continue
		}
		dst = append(dst, head.text...) // items in a row mostly share their action and index
		if it.ID != "" {
			dst = appendJSONStr(dst, it.ID)
		} else {
			dst = ids.append(dst)
		}
		if msg == "" {
			dst = append(dst, createdTail...)
			continue
		}
		dst = append(dst, `,"status":400,"error":{"type":"`...)
		dst = append(dst, kind...)
		dst = append(dst, `","reason":`...)
		dst = appendJSONStr(dst, msg)
		dst = append(dst, `}}}`...)
	}
	return append(dst, "]}"...)
}

// appendJSONStr appends s as a JSON string. Names and messages here are
// valid UTF-8 (the decoder makes them so); only quotes, backslashes and
// control characters need escaping.
func appendJSONStr(dst []byte, s string) []byte {
	const hex = "0123456789abcdef"
	dst = append(dst, '"')
	for i := 0; i < len(s); i++ {
		switch c := s[i]; {
		case c == '"' || c == '\\':
			dst = append(dst, '\\', c)
		case c < 0x20:
			dst = append(dst, '\\', 'u', '0', '0', hex[c>>4], hex[c&15])
		default:
			dst = append(dst, c)
		}
	}
	return append(dst, '"')
}

// createdTail ends the item of a stored document after its _id.
// _shards, _seq_no and _primary_term, optional in every client, would be
// a third of a large answer.
const createdTail = `,"_version":1,"result":"created","status":201}}`

// bulkIDs hands out the _id of items that name none: 20 URL-safe
// characters like Elasticsearch's, unique per process (a random prefix
// and a counter), cheap enough for every item of a large batch. The
// first 8 characters encode 6 bytes of the prefix and never change
// (head); the last 12 encode its seventh byte and the counter.
type bulkIDs struct {
	buf  [15]byte
	n    uint64
	head string
}

// idTail is how many characters of an _id change from one to the next.
const idTail = 12

var (
	bulkIDPrefix [7]byte
	bulkIDSeq    atomic.Uint64
)

func init() { rand.Read(bulkIDPrefix[:]) }

// newBulkIDs reserves one id for each item without an _id.
func newBulkIDs(items []db.BulkItem) *bulkIDs {
	var want uint64
	for _, it := range items {
		if it.ID == "" {
			want++
		}
	}
	g := &bulkIDs{n: bulkIDSeq.Add(want) - want}
	copy(g.buf[:], bulkIDPrefix[:])
	g.head = base64.RawURLEncoding.EncodeToString(g.buf[:6])
	return g
}

// putTail writes the last idTail characters of the next id into dst.
func (g *bulkIDs) putTail(dst []byte) {
	binary.BigEndian.PutUint64(g.buf[7:], g.n)
	g.n++
	base64.RawURLEncoding.Encode(dst, g.buf[6:])
}

// append appends the next id to dst as a JSON string (its characters
// need no escaping).
func (g *bulkIDs) append(dst []byte) []byte {
	binary.BigEndian.PutUint64(g.buf[7:], g.n)
	g.n++
	dst = append(dst, '"')
	dst = base64.RawURLEncoding.AppendEncode(dst, g.buf[:])
	return append(dst, '"')
}

// bulkAnswerSize is about the length of the answer for items, so its
// buffer is allocated once.
func bulkAnswerSize(items []db.BulkItem, index string) int {
	n := 64
	for _, it := range items {
		n += 96 + len(it.Index) + len(it.ID) + len(it.Error)
		if it.Index == "" {
			n += len(index)
		}
	}
	return n
}

// handleElasticInfo answers GET / (and HEAD /), the version probe every
// Elasticsearch client makes before it sends.
func (s *Server) handleElasticInfo(c *call) error {
	return writeJSON(c.RequestCtx, http.StatusOK, map[string]any{
		"name":         "aplite",
		"cluster_name": "aplite",
		"cluster_uuid": "aplite",
		"version": map[string]any{
			"number":                              elasticVersion,
			"build_flavor":                        "default",
			"build_type":                          "tar",
			"build_hash":                          "aplite",
			"build_date":                          "2022-01-28T08:36:04.875279988Z",
			"build_snapshot":                      false,
			"lucene_version":                      "8.11.1",
			"minimum_wire_compatibility_version":  "6.8.0",
			"minimum_index_compatibility_version": "6.0.0-beta1",
		},
		"tagline": "You Know, for Search",
	})
}

// handleElasticLicense answers GET _license (Beats' license check) in the
// shape of Axiom's elasticLicenseResponse: an active basic license.
func (s *Server) handleElasticLicense(c *call) error {
	return writeJSON(c.RequestCtx, http.StatusOK, map[string]any{"license": map[string]any{
		"status": "active", "uid": "aplite", "type": "basic",
		"issue_date": "2024-01-01T00:00:00.000Z", "issue_date_in_millis": int64(1704067200000),
		"max_nodes": 1000, "issued_to": "aplite", "issuer": "aplite", "start_date_in_millis": -1,
	}})
}

// handleElasticHealth answers GET _cluster/health, Axiom's elasticHealth.
func (s *Server) handleElasticHealth(c *call) error {
	return writeJSON(c.RequestCtx, http.StatusOK, map[string]string{"cluster_name": "aplite", "status": "green"})
}

// handleElasticAbsent answers a shipper asking whether its index
// template, ILM policy or ingest pipeline exists: aplite keeps none (a
// dataset needs no mapping), so never; the shipper then installs it.
func (s *Server) handleElasticAbsent(c *call) error {
	reason := "aplite keeps no index templates, ILM policies or ingest pipelines: " + string(c.Path()) + " does not exist"
	return writeJSON(c.RequestCtx, http.StatusNotFound, map[string]any{
		"error": map[string]any{
			"root_cause": []map[string]string{{"type": "resource_not_found_exception", "reason": reason}},
			"type":       "resource_not_found_exception", "reason": reason,
		},
		"status": http.StatusNotFound,
	})
}

// handleElasticAccept acknowledges the install of a template, policy or
// pipeline without keeping it: events land in the dataset as they are,
// and a shipper that cannot install its template refuses to start.
func (s *Server) handleElasticAccept(c *call) error {
	return writeJSON(c.RequestCtx, http.StatusOK, map[string]bool{"acknowledged": true})
}
