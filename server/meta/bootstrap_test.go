package meta

import (
	"fmt"
	"testing"
	"time"
)

// A start after the first writes nothing; a user left without an org (a
// data directory from before several orgs) is still adopted by the next
// start.
func TestBootstrapWritesOnlyWhatIsMissing(t *testing.T) {
	s, err := Open(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	commits := 0
	s.OnCommit(func() { commits++ })
	now := time.Now()
	if _, err := s.Bootstrap("acme", now); err != nil {
		t.Fatal(err)
	}
	if commits != 1 {
		t.Fatalf("first start: %d commits, want 1", commits)
	}
	if _, err := s.Bootstrap("acme", now); err != nil || commits != 1 {
		t.Fatalf("second start: %d commits (%v), want none more", commits, err)
	}
	if err := s.Put(KindUser, "", "u-old", User{ID: "u-old", Email: "old@x", Role: Role{Name: "read-only"}}); err != nil {
		t.Fatal(err)
	}
	commits = 0
	if _, err := s.Bootstrap("acme", now); err != nil || commits != 1 {
		t.Fatalf("start with an orphan user: %d commits (%v), want 1", commits, err)
	}
	if m, ok := s.Member("acme", "u-old"); !ok || m.Role != "read-only" {
		t.Fatalf("orphan not adopted: %+v %v", m, ok)
	}
}

// Members lists one org's memberships, or every org's, sorted by org then
// email, from the membership records.
func TestMembersListing(t *testing.T) {
	s, err := Open(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	now := time.Now()
	for _, org := range []string{"a", "b"} {
		if _, err := s.CreateOrg(org, org, now); err != nil {
			t.Fatal(err)
		}
	}
	if _, _, err := s.AddUser("zed@x", "Zed", "a", "user", now); err != nil {
		t.Fatal(err)
	}
	if _, _, err := s.AddUser("amy@x", "Amy", "a", "admin", now); err != nil {
		t.Fatal(err)
	}
	if _, _, err := s.AddUser("zed@x", "Zed", "b", "read-only", now); err != nil {
		t.Fatal(err)
	}
	rows, err := s.Members("")
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, r := range rows {
		got = append(got, r.Org+":"+r.User.Email+":"+r.Role)
	}
	want := "[a:amy@x:admin a:zed@x:user b:zed@x:read-only]"
	if s := fmt.Sprint(got); s != want {
		t.Fatalf("all members %s, want %s", s, want)
	}
	rows, err = s.Members("b")
	if err != nil || len(rows) != 1 || rows[0].User.Email != "zed@x" {
		t.Fatalf("members of b: %+v %v", rows, err)
	}
}
