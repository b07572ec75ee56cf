package store

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/aplite/aplite/vector"
)

// A granule of free text (a few words of a large vocabulary a line, a
// request id on half of them) lets few absent words through: at ten
// million events a rare word's search reads every granule a filter lets
// through, and at 8 bits a term the 2.3% false positives were a quarter
// of the granules it read.
func TestTermFilterFalsePositivesOnFreeText(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	vocab := make([]string, 20000)
	for i := range vocab {
		vocab[i] = fmt.Sprintf("w%dx", i)
	}
	strs := make([]string, termGranule)
	for i := range strs {
		var b strings.Builder
		b.WriteString("served GET /api/items status=200")
		for range 3 + r.IntN(6) {
			b.WriteString(" " + vocab[int(float64(len(vocab))*r.Float64()*r.Float64())])
		}
		if r.IntN(2) == 0 {
			fmt.Fprintf(&b, " req_id=%016x", r.Uint64())
		}
		strs[i] = b.String()
	}
	v := &vector.Vector{Type: vector.String, Len: len(strs), Strs: strs}
	f, err := parseTermFilter(buildTermFilter(v, len(strs), nil), blockVersion, len(strs))
	if err != nil {
		t.Fatal(err)
	}
	const probes = 20000
	fp := 0
	for i := range probes {
		if _, may := f.Granules([]string{fmt.Sprintf("absent%d", i)}); may[0] {
			fp++
		}
	}
	if rate := float64(fp) / probes; rate > 0.006 {
		t.Errorf("%.2f%% of absent words pass a granule's filter, want at most 0.6%%", 100*rate)
	}
}
