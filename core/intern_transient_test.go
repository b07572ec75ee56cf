package core

import (
	"context"
	"slices"
	"testing"
	"time"

	"github.com/aplite/aplite/core/exec"
	"github.com/aplite/aplite/vector"
)

// A query over streams remembers no dictionary by its address: a stream
// chunk's dictionary lives for one chunk, and remembering it kept every
// chunk's dictionary alive until the query ended.
func TestTransientDictionariesAreNotKept(t *testing.T) {
	kept, transient := exec.NewInterner(), &exec.Interner{Ids: map[string]uint32{}, Transient: true}
	for range 3 {
		d := []string{"GET", "POST", "PUT"}
		if got, want := transient.Dict(d), kept.Dict(d); !slices.Equal(got, want) {
			t.Fatalf("transient ids %v, kept ids %v", got, want)
		}
	}
	if n := transient.Ndicts.Load(); n != 0 {
		t.Errorf("the transient interner remembers %d dictionaries", n)
	}
	if n := kept.Ndicts.Load(); n != 3 {
		t.Errorf("the engine's interner remembers %d dictionaries, want 3", n)
	}

	m := &exec.DictMemo{Transient: true}
	v := &vector.Vector{Type: vector.String, Len: 2, Dict: []string{"a", "b"}, Codes: []uint32{1, 0}}
	out := m.Apply(v, "has x", 2, func(d []string) []bool { return []bool{false, true} }, false)
	if !out.Bools[0] || out.Bools[1] || len(m.Cache) != 0 {
		t.Errorf("transient memo: answer %v, %d entries kept", out.Bools, len(m.Cache))
	}

	e := NewEngine(nil)
	streams := exec.NewStreamTables(map[string]exec.TableStream{"t": nil})
	p, _, x, err := e.planReq(context.Background(), &exec.Request{APL: "print 1"}, streams, time.Now())
	if err != nil {
		t.Fatal(err)
	}
	p.release()
	if !x.Intern.Transient || !x.Preds.Transient || x.Intern == e.interner() {
		t.Error("a query over streams shares the engine's dictionary caches")
	}
}
