package server

import (
	"fmt"
	"strings"
	"testing"

	"github.com/aplite/aplite/db"
)

// A write on a node whose writer lease was taken over is 503 naming the
// new holder, on the ingest routes and every other one.
func TestLeaseLostAnswers503(t *testing.T) {
	err := fmt.Errorf("store: dataset logs: not committing catalog version 3: %w to ingest-2:41:ab12 (token 2); it accepts no more writes to this prefix", db.ErrLeaseLost)
	s := &Server{cfg: Config{Log: &strings.Builder{}}}
	for name, e := range map[string]*apiError{"any route": asAPIError(err), "ingest": asAPIError(s.storeFailed("logs", err))} {
		if e.Status != 503 || !strings.HasPrefix(e.Message, "this node lost the write lease to ingest-2:41:ab12 (token 2)") {
			t.Errorf("%s: %d %q, want 503 naming the new holder", name, e.Status, e.Message)
		}
	}
}
