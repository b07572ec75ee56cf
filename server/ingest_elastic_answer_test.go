package server

import (
	"encoding/base64"
	"encoding/binary"
	"encoding/json"
	"testing"
	"time"

	"github.com/aplite/aplite/db"
)

// The answer's generated _ids are the process's prefix and a counter
// that goes up by one per item without an _id, whether the item was
// written whole from its template (stored, no _id of its own) or piece by
// piece (failed); items with an _id keep theirs, and each item has its
// index, status and result.
func TestBulkAnswerItems(t *testing.T) {
	res := db.BulkResult{Items: []db.BulkItem{
		{Op: db.BulkCreate, Row: 0},
		{Op: db.BulkCreate, Row: 1},
		{Op: db.BulkIndex, Index: "other", Row: 2},
		{Op: db.BulkIndex, ID: "mine", Row: 3},
		{Op: db.BulkCreate, Row: -1, Error: "line 9: invalid JSON"},
		{Op: db.BulkDelete, ID: "d", Row: -1, Error: "line 10: delete is not supported"},
		{Op: db.BulkCreate, Row: 4},
	}}
	var got struct {
		Errors bool
		Items  []map[string]struct {
			Index  string `json:"_index"`
			ID     string `json:"_id"`
			Status int
			Result string
		}
	}
	out := appendBulkAnswer(nil, "logs", &res, time.Millisecond)
	if err := json.Unmarshal(out, &got); err != nil {
		t.Fatalf("%s: %v", out, err)
	}
	want := []struct{ op, index, id, result string }{
		{"create", "logs", "", "created"}, {"create", "logs", "", "created"}, {"index", "other", "", "created"},
		{"index", "logs", "mine", "created"}, {"create", "logs", "", ""}, {"delete", "logs", "d", ""}, {"create", "logs", "", "created"},
	}
	if !got.Errors || len(got.Items) != len(want) {
		t.Fatalf("%s", out)
	}
	var seq []uint64
	for i, w := range want {
		it, ok := got.Items[i][w.op]
		status := 201
		if w.result == "" {
			status = 400
		}
		if !ok || it.Index != w.index || it.Result != w.result || it.Status != status || w.id != "" && it.ID != w.id {
			t.Fatalf("item %d: %+v, want %+v (%s)", i, got.Items[i], w, out)
		}
		if w.id != "" {
			continue
		}
		raw, err := base64.RawURLEncoding.DecodeString(it.ID)
		if err != nil || len(it.ID) != 20 || [7]byte(raw[:7]) != bulkIDPrefix {
			t.Fatalf("item %d: _id %q is not the prefix and a counter", i, it.ID)
		}
		seq = append(seq, binary.BigEndian.Uint64(raw[7:]))
	}
	for i := 1; i < len(seq); i++ {
		if seq[i] != seq[i-1]+1 {
			t.Fatalf("generated _id counters %v do not go up by one", seq)
		}
	}
}
