package db

import (
	"errors"
	"reflect"
	"testing"
)

// A field stored with several types lists them all, sorted and joined; a
// field that only ever held nulls is "unknown"; fields come sorted.
func TestFieldsMergesTypes(t *testing.T) {
	got := Fields([]ColKey{{Name: "status", Type: Int}, {Name: "a", Type: Null},
		{Name: "status", Type: Float}, {Name: "status", Type: Int}, {Name: "msg", Type: String}, {Name: "msg", Type: Null}})
	want := []Field{{"a", "unknown"}, {"msg", "string"}, {"status", "float|integer"}}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("got %v\nwant %v", got, want)
	}
}

// The per-dataset calls answer ErrNotFound for a dataset that does not
// exist, which the server turns into a 404.
func TestDatasetCallsNotFound(t *testing.T) {
	d := newDB(t)
	if _, err := d.Info("x"); !errors.Is(err, ErrNotFound) {
		t.Errorf("Info: %v", err)
	}
	if _, err := d.Trim("x", 0); !errors.Is(err, ErrNotFound) {
		t.Errorf("Trim: %v", err)
	}
	if err := d.Flush("x"); !errors.Is(err, ErrNotFound) {
		t.Errorf("Flush: %v", err)
	}
	if _, err := d.Snapshot("x"); !errors.Is(err, ErrNotFound) {
		t.Errorf("Snapshot: %v", err)
	}
}
