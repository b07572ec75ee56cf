package core

import (
	"context"
	"testing"

	"github.com/aplite/aplite/core/exec"
	"github.com/aplite/aplite/core/store"
)

// A request's catalog replaces the engine's for that query only, wildcards
// included, and the shared caches never answer it from the other one.
func TestRequestCatalog(t *testing.T) {
	full := fixtureDB(t, 2, true)
	other := store.OpenMemory(store.Options{})
	t.Cleanup(func() { other.Close() })
	if _, err := other.Create("logs"); err != nil {
		t.Fatal(err)
	}
	e := NewEngine(exec.StoreCatalog(full))
	count := func(cat exec.Catalog, apl string) (any, error) {
		res, err := e.Query(context.Background(), &exec.Request{APL: apl, Catalog: cat})
		if err != nil {
			return nil, err
		}
		return rows(res)[0][0], nil
	}
	for _, apl := range []string{"['logs'] | count", "union * | count", `search "Higgs" | count`} {
		want, err := count(nil, apl)
		if err != nil || want == int64(0) {
			t.Fatalf("%s over the engine's catalog: %v, %v", apl, want, err)
		}
		if got, err := count(exec.StoreCatalog(other), apl); err != nil || got != int64(0) {
			t.Errorf("%s over the request's empty catalog: %v, %v", apl, got, err)
		}
		if again, _ := count(nil, apl); again != want {
			t.Errorf("%s over the engine's catalog again: %v, want %v", apl, again, want)
		}
	}
}
