package exec

import (
	"testing"
	"unsafe"

	"github.com/aplite/aplite/vector"
)

// Collected rows of a stream keep none of the decoded chunk's memory: the
// strings, dictionary entries and dynamic values of a detached batch lie
// outside the chunk's buffer, equal what they were, and the vectors the
// Batch viewed are left as they were for the other batches viewing them.
func TestDetachStringsLeavesTheChunk(t *testing.T) {
	chunk := []byte("GET/api/v1/usersPOSTtags")
	in := func(s string) bool {
		p := uintptr(unsafe.Pointer(unsafe.StringData(s)))
		lo := uintptr(unsafe.Pointer(&chunk[0]))
		return len(s) > 0 && p >= lo && p < lo+uintptr(len(chunk))
	}
	str := func(i, j int) string { return unsafe.String(&chunk[i], j-i) }
	plain := &vector.Vector{Type: vector.String, Len: 3, Strs: []string{str(0, 3), "", str(3, 16)}}
	coded := &vector.Vector{Type: vector.String, Len: 2, Dict: []string{str(16, 20), str(0, 3)}, Codes: []uint32{1, 0}}
	dyn := &vector.Vector{Type: vector.Dynamic, Len: 1, Dyns: []any{map[string]any{str(20, 24): []any{str(0, 3), int64(7)}}}}
	b := NewBatch([]*vector.Vector{plain, coded, dyn}, 3)
	dicts := map[*string][]string{}
	detachStrings(b, dicts)
	got := b.Cols
	if got[0].Strs[0] != "GET" || got[0].Strs[1] != "" || got[0].Strs[2] != "/api/v1/users" || in(got[0].Strs[0]) || in(got[0].Strs[2]) {
		t.Errorf("plain strings %q still in the chunk or changed", got[0].Strs)
	}
	if got[1].Dict[0] != "POST" || in(got[1].Dict[0]) || in(got[1].Dict[1]) || &got[1].Codes[0] != &coded.Codes[0] {
		t.Errorf("dictionary %q still in the chunk or changed", got[1].Dict)
	}
	for k, v := range got[2].Dyns[0].(map[string]any) {
		if k != "tags" || in(k) || v.([]any)[0] != "GET" || in(v.([]any)[0].(string)) || v.([]any)[1] != int64(7) {
			t.Errorf("dynamic %q: %v still in the chunk or changed", k, v)
		}
	}
	if !in(plain.Strs[0]) || !in(coded.Dict[0]) {
		t.Error("the vectors the batch viewed were changed")
	}
	b2 := NewBatch([]*vector.Vector{coded}, 2)
	detachStrings(b2, dicts)
	if &b2.Cols[0].Dict[0] != &got[1].Dict[0] {
		t.Error("a dictionary shared by two batches was copied twice")
	}
}
