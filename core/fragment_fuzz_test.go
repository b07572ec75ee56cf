package core

import (
	"context"
	"encoding/json"
	"regexp"
	"strconv"
	"testing"

	"github.com/aplite/aplite/core/exec"
)

// FuzzRunFragment feeds RunFragment plans a peer could send: a query
// node builds and runs whatever arrives, and nothing recovers a panic in
// its scan workers, so a malformed plan must come back as an error. The
// seeds are the plans of planQueries over the test cluster's blocks.
func FuzzRunFragment(f *testing.F) {
	c := newTestCluster(f)
	for _, q := range planQueries {
		if js, ok := fragmentBytes(f, c, q); ok {
			f.Add(js)
		}
	}
	f.Fuzz(func(t *testing.T, js []byte) {
		_, _ = c.b.RunFragment(context.Background(), &exec.Fragment{Plan: js, Now: fixtureNow})
	})
}

// FuzzRunFragmentNumbers changes one number of a valid plan (a column
// index, a type, a count, a constant), which byte-level fuzzing of JSON
// seldom reaches: the plan still decodes and has to be refused by the
// builder or run, never panic.
func FuzzRunFragmentNumbers(f *testing.F) {
	c := newTestCluster(f)
	var seeds [][]byte
	for _, q := range planQueries {
		if js, ok := fragmentBytes(f, c, q); ok {
			seeds = append(seeds, js)
		}
	}
	for i := range seeds {
		f.Add(uint8(i), uint16(0), int64(-1))
		f.Add(uint8(i), uint16(3), int64(9))
	}
	f.Fuzz(func(t *testing.T, seed uint8, k uint16, v int64) {
		js := seeds[int(seed)%len(seeds)]
		nums := jsonNumber.FindAllSubmatchIndex(js, -1)
		if len(nums) == 0 {
			return
		}
		at := nums[int(k)%len(nums)]
		edited := append(append(append([]byte(nil), js[:at[2]]...), strconv.FormatInt(v, 10)...), js[at[3]:]...)
		_, _ = c.b.RunFragment(context.Background(), &exec.Fragment{Plan: edited, Now: fixtureNow})
	})
}

// jsonNumber matches a JSON number that is a value (after a colon, a
// bracket or a comma), not digits inside a string.
var jsonNumber = regexp.MustCompile(`(?:[:\[,])(-?[0-9]+(?:\.[0-9]+)?(?:[eE][-+]?[0-9]+)?)`)

// FuzzRunFragmentStrings is FuzzRunFragmentNumbers for the strings of a
// plan: an operator, a function or column name, a parse pattern.
func FuzzRunFragmentStrings(f *testing.F) {
	c := newTestCluster(f)
	var seeds [][]byte
	for _, q := range planQueries {
		if js, ok := fragmentBytes(f, c, q); ok {
			seeds = append(seeds, js)
		}
	}
	for i := range seeds {
		f.Add(uint8(i), uint16(5), "==")
		f.Add(uint8(i), uint16(9), "")
	}
	f.Fuzz(func(t *testing.T, seed uint8, k uint16, v string) {
		js := seeds[int(seed)%len(seeds)]
		strs := jsonString.FindAllSubmatchIndex(js, -1)
		if len(strs) == 0 {
			return
		}
		at := strs[int(k)%len(strs)]
		q, err := json.Marshal(v)
		if err != nil {
			return
		}
		edited := append(append(append([]byte(nil), js[:at[2]]...), q...), js[at[3]:]...)
		_, _ = c.b.RunFragment(context.Background(), &exec.Fragment{Plan: edited, Now: fixtureNow})
	})
}

// jsonString matches a JSON string after a colon, a bracket or a comma:
// a value, or a key other than an object's first (renaming it drops
// that field, which is worth trying too).
var jsonString = regexp.MustCompile(`(?:[:\[,])("(?:[^"\\]|\\.)*")`)

// fragmentBytes is the encoded fragment plan of q (travellingFragment);
// ok is false when q does not parse or its pipeline does not travel.
func fragmentBytes(t testing.TB, c *testCluster, q string) ([]byte, bool) {
	p, pl, x, err := c.a.prepare(context.Background(), &exec.Request{APL: q, Now: fixtureNow, DisableCache: true}, nil, fixtureNow)
	if err != nil {
		return nil, false
	}
	defer p.release()
	pf, ok := travellingFragment(pl, x)
	if !ok {
		return nil, false
	}
	js, err := pf.Encode()
	if err != nil {
		t.Fatal(err)
	}
	return js, true
}
