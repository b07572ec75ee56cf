package main

import (
	"bytes"
	"os"
	"testing"
)

// The committed kernels are what the template makes: a template edit
// without `go generate ./vector` fails here, not in a review.
func TestKernelsUpToDate(t *testing.T) {
	want, err := render()
	if err != nil {
		t.Fatal(err)
	}
	got, err := os.ReadFile("../../kernels.eg.go")
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, want) {
		t.Fatal("vector/kernels.eg.go is stale: run go generate ./vector")
	}
}
