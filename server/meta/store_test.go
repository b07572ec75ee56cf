package meta

import (
	"errors"
	"fmt"
	"sync"
	"testing"
	"time"
)

func TestBootstrapIsIdempotentAcrossRestarts(t *testing.T) {
	dir := t.TempDir()
	s, err := Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	now := time.Now()
	u1, err := s.Bootstrap("acme", now)
	if err != nil {
		t.Fatal(err)
	}
	secret := NewSecret(PrefixPersonal)
	if err := s.EnsurePAT(secret, u1.ID, "acme", now); err != nil {
		t.Fatal(err)
	}
	if err := s.EnsurePAT(secret, u1.ID, "acme", now); err != nil {
		t.Fatal(err)
	}
	s.Close()

	s, err = Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	u2, err := s.Bootstrap("acme", now)
	if err != nil {
		t.Fatal(err)
	}
	if u1.ID != u2.ID {
		t.Fatalf("owner changed across restarts: %s vs %s", u1.ID, u2.ID)
	}
	rec, err := s.TokenBySecret(secret)
	if err != nil {
		t.Fatal(err)
	}
	if rec.UserID != u1.ID || rec.Kind != TokenPersonal || rec.OrgID != "acme" {
		t.Fatalf("token record %+v", rec)
	}
	toks, err := List[TokenRecord](s, KindToken, "")
	if err != nil || len(toks) != 1 {
		t.Fatalf("want exactly one token after two EnsurePAT, got %d (%v)", len(toks), err)
	}
	var org Org
	if err := s.Get(KindOrg, "", "acme", &org); err != nil || org.License.APIRateLimitPerSecond == 0 {
		t.Fatalf("org %+v, %v", org, err)
	}
}

func TestTokenLookupRejectsUnknownAndDeleted(t *testing.T) {
	s, err := Open(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if _, err := s.TokenBySecret("xaat-nope"); !errors.Is(err, ErrNotFound) {
		t.Fatalf("unknown secret: %v", err)
	}
	secret := NewSecret(PrefixAPI)
	rec := &TokenRecord{APIToken: APIToken{ID: "t1", Name: "n"}, Kind: TokenAPI}
	if err := s.Update(func(tx *Tx) error { return tx.PutToken(rec, secret) }); err != nil {
		t.Fatal(err)
	}
	var stored TokenRecord
	if err := s.Get(KindToken, "", "t1", &stored); err != nil {
		t.Fatal(err)
	}
	if stored.Hash == "" || stored.Hash == secret {
		t.Fatalf("secret must be stored hashed, got %q", stored.Hash)
	}
	if _, err := s.TokenBySecret(secret); err != nil {
		t.Fatal(err)
	}
	if err := s.Update(func(tx *Tx) error { return tx.DeleteToken("t1") }); err != nil {
		t.Fatal(err)
	}
	if _, err := s.TokenBySecret(secret); !errors.Is(err, ErrNotFound) {
		t.Fatalf("deleted token still found: %v", err)
	}
}

func TestCRUDScopedByOrg(t *testing.T) {
	s, err := Open(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	g := Group{ID: "g1", Name: "a"}
	if err := s.Insert(KindGroup, "o1", g.ID, g); err != nil {
		t.Fatal(err)
	}
	if err := s.Insert(KindGroup, "o1", g.ID, g); !errors.Is(err, ErrExists) {
		t.Fatalf("duplicate insert: %v", err)
	}
	if err := s.Insert(KindGroup, "o10", "g2", Group{ID: "g2"}); err != nil {
		t.Fatal(err)
	}
	gs, _ := List[Group](s, KindGroup, "o1")
	if len(gs) != 1 || gs[0].ID != "g1" {
		t.Fatalf("org o1 must not see o10's groups: %+v", gs)
	}
	if err := s.Delete(KindGroup, "o1", "g1"); err != nil {
		t.Fatal(err)
	}
	if err := s.Delete(KindGroup, "o1", "g1"); !errors.Is(err, ErrNotFound) {
		t.Fatalf("second delete: %v", err)
	}
	var out Group
	if err := s.Get(KindGroup, "o1", "g1", &out); !errors.Is(err, ErrNotFound) {
		t.Fatalf("get deleted: %v", err)
	}
}

func TestConcurrentInsertsKeepEveryRecord(t *testing.T) {
	s, err := Open(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	var wg sync.WaitGroup
	for i := 0; i < 20; i++ {
		wg.Add(1)
		go func(i int) {
			defer wg.Done()
			id := fmt.Sprintf("a%02d", i)
			if err := s.Insert(KindAnnotation, "o", id, Annotation{ID: id}); err != nil {
				t.Error(err)
			}
		}(i)
	}
	wg.Wait()
	as, err := List[Annotation](s, KindAnnotation, "o")
	if err != nil || len(as) != 20 {
		t.Fatalf("got %d annotations (%v)", len(as), err)
	}
}

func TestSecretsAndIDs(t *testing.T) {
	a, b := NewSecret(PrefixAPI), NewSecret(PrefixAPI)
	if a == b || !ValidSecret(a) {
		t.Fatalf("secrets %q %q", a, b)
	}
	for _, bad := range []string{"", "abc", "xaat-", "Bearer xaat-123456", "xaat-12345\n678"} {
		if ValidSecret(bad) {
			t.Errorf("ValidSecret(%q) = true", bad)
		}
	}
	if id := NewShortID("ann_"); len(id) != 24 || id[:4] != "ann_" {
		t.Fatalf("short id %q", id)
	}
	if id := NewID(); len(id) != 36 || id[14] != '4' {
		t.Fatalf("id %q", id)
	}
}
