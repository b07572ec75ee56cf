package meta

import (
	"sync"
	"testing"
	"time"
)

// Member is cached, but a role change, a removal, or a replaced file is
// seen by the very next call.
func TestMemberFollowsWrites(t *testing.T) {
	s, err := Open(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	now := time.Now()
	put := func(role string) {
		t.Helper()
		if err := s.Update(func(tx *Tx) error { return tx.PutMember("o1", "u1", role, now) }); err != nil {
			t.Fatal(err)
		}
	}
	if _, ok := s.Member("o1", "u1"); ok {
		t.Fatal("member before being added")
	}
	put("user")
	for range 2 { // the second answer comes from the cache
		if m, ok := s.Member("o1", "u1"); !ok || m.Role != "user" {
			t.Fatalf("after add: %+v %v", m, ok)
		}
	}
	put("read-only")
	if m, _ := s.Member("o1", "u1"); m.Role != "read-only" {
		t.Fatalf("after role change: %q", m.Role)
	}
	snap, err := s.Snapshot()
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Delete(KindMember, "o1", "u1"); err != nil {
		t.Fatal(err)
	}
	if _, ok := s.Member("o1", "u1"); ok {
		t.Fatal("member after removal")
	}
	if err := s.Replace(snap); err != nil {
		t.Fatal(err)
	}
	if m, ok := s.Member("o1", "u1"); !ok || m.Role != "read-only" {
		t.Fatalf("after replace: %+v %v", m, ok)
	}
}

// A reader racing a writer never leaves a stale answer cached: once the
// writes stop, every reader sees the last role.
func TestMemberCacheRace(t *testing.T) {
	s, err := Open(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	now := time.Now()
	var wg sync.WaitGroup
	stop := make(chan struct{})
	for range 4 {
		wg.Go(func() {
			for {
				select {
				case <-stop:
					return
				default:
					s.Member("o1", "u1")
				}
			}
		})
	}
	roles := []string{"user", "admin", "read-only"}
	for i := range 60 {
		if err := s.Update(func(tx *Tx) error { return tx.PutMember("o1", "u1", roles[i%3], now) }); err != nil {
			t.Fatal(err)
		}
	}
	close(stop)
	wg.Wait()
	if m, _ := s.Member("o1", "u1"); m.Role != roles[59%3] {
		t.Fatalf("role %q after the writes, want %q", m.Role, roles[59%3])
	}
}
