package ingest

import (
	"math"
	"math/rand/v2"
	"strconv"
	"strings"
	"testing"
	"time"
)

func TestParseTimeAuto(t *testing.T) {
	base := time.Date(2024, 1, 2, 3, 4, 5, 0, time.UTC).UnixNano()
	cases := []struct {
		in   string
		want int64
	}{
		{"2024-01-02T03:04:05Z", base},
		{"2024-01-02t03:04:05z", base},
		{"2024-01-02T03:04:05.123456789Z", base + 123456789},
		{"2024-01-02T03:04:05.5Z", base + 5e8},
		{"2024-01-02T03:04:05,5Z", base + 5e8},
		{"2024-01-02T05:04:05+02:00", base},
		{"2024-01-01T22:34:05-04:30", base},
		{"2024-01-02T05:04:05+0200", base},
		{"2024-01-02T05:04:05+02", base},
		{"2024-01-02T03:04:05", base},
		{"2024-01-02 03:04:05", base},
		{"2024-01-02 03:04:05.25", base + 25e7},
		{"2024-01-02T03:04Z", base - 5e9},
		{"2024-01-02", time.Date(2024, 1, 2, 0, 0, 0, 0, time.UTC).UnixNano()},
		{"1704164645", base},
		{"1704164645.5", base + 5e8},
		{"1704164645000", base},
		{"1704164645000000", base},
		{"1704164645000000000", base},
		{"-86400", -86400e9},
		{"Tue, 02 Jan 2024 03:04:05 +0000", base},
		{"Tue, 02 Jan 2024 03:04:05 GMT", base},
		{"02/Jan/2024:04:04:05 +0100", base},
		{"Tue Jan  2 03:04:05 2024", base},
		{"2024-01-02 03:04:05 +0000 UTC", base},
		{"2024-02-29T00:00:00Z", time.Date(2024, 2, 29, 0, 0, 0, 0, time.UTC).UnixNano()},
		{"1970-01-01T00:00:00Z", 0},
		{"1969-12-31T23:59:59.5Z", -5e8},
	}
	for _, c := range cases {
		got, err := parseTime([]byte(c.in), "")
		if err != nil || got != c.want {
			t.Errorf("%q: got %d (%v), %v; want %d (%v)", c.in, got, time.Unix(0, got).UTC(), err, c.want, time.Unix(0, c.want).UTC())
		}
	}
}

func TestParseTimeErrors(t *testing.T) {
	for _, in := range []string{
		"", "yesterday", "2024-13-01T00:00:00Z", "2023-02-29T00:00:00Z", "2024-01-02T24:00:00Z",
		"2024-01-02T03:60:00Z", "2024-01-02T03:04:60Z", "2024-01-02T03:04:05+25:00", "2024-01-02T03:04:05+01:61", "2024-01-02T03:04:05 junk",
		"1e400", "99999999999999999999", "1500-01-01T00:00:00Z", "2300-01-01T00:00:00Z", "12:30",
	} {
		if got, err := parseTime([]byte(in), ""); err == nil {
			t.Errorf("%q parsed as %v", in, time.Unix(0, got).UTC())
		}
	}
}

func TestParseTimeLayout(t *testing.T) {
	got, err := parseTime([]byte("2024-01-02 03:04:05.250 +0100"), "2006-01-02 15:04:05.000 -0700")
	if err != nil || got != time.Date(2024, 1, 2, 2, 4, 5, 25e7, time.UTC).UnixNano() {
		t.Fatalf("%d %v", got, err)
	}
	// A zone-less layout is UTC.
	got, err = parseTime([]byte("02.01.2024 03:04"), "02.01.2006 15:04")
	if err != nil || got != time.Date(2024, 1, 2, 3, 4, 0, 0, time.UTC).UnixNano() {
		t.Fatalf("%d %v", got, err)
	}
	// With a layout, other formats fail instead of being guessed.
	if _, err := parseTime([]byte("2024-01-02T03:04:05Z"), "02.01.2006"); err == nil || !strings.Contains(err.Error(), `"02.01.2006"`) {
		t.Fatalf("err %v", err)
	}
}

func TestEpochNumbers(t *testing.T) {
	cases := []struct {
		in   int64
		want int64
	}{
		{0, 0},
		{1704164645, 1704164645e9},
		{9000000000, 9000000000e9},       // year 2255, still seconds
		{1704164645123, 1704164645123e6}, // ms
		{1704164645123456, 1704164645123456e3},
		{1704164645123456789, 1704164645123456789},
		{-1704164645, -1704164645e9},
	}
	for _, c := range cases {
		if got, ok := epochInt(c.in); !ok || got != c.want {
			t.Errorf("epochInt(%d) = %d, %v; want %d", c.in, got, ok, c.want)
		}
	}
	if _, ok := epochInt(99999999999); ok {
		t.Error("99999999999 s (year 5138) should be out of range, not read as ms")
	}
	if got, ok := epochFloat(1704164645.25); !ok || got != 1704164645250000000 {
		t.Errorf("epochFloat = %d %v", got, ok)
	}
	if _, ok := epochFloat(1e300); ok {
		t.Error("1e300 accepted")
	}
}

// FuzzTime checks the fast ISO path against time.Parse wherever the
// latter accepts RFC 3339.
func FuzzTime(f *testing.F) {
	for _, s := range []string{"2024-01-02T03:04:05Z", "2024-01-02T03:04:05.123456789+05:30", "0001-01-01T00:00:00Z",
		"2024-02-30T00:00:00Z", "2024-01-02T03:04:05.1234567891Z", "2024-01-02T03:04:05-23:59"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		want, werr := time.Parse(time.RFC3339Nano, s)
		got, err := parseTime([]byte(s), "")
		if werr != nil {
			return // our auto-detection accepts more than RFC 3339
		}
		if y := want.Year(); y < 1678 || y > 2262 {
			if err == nil {
				t.Fatalf("%q: year %d accepted", s, y)
			}
			return
		}
		if err != nil || got != want.UnixNano() {
			t.Fatalf("%q: got %d, %v; time.Parse says %d", s, got, err, want.UnixNano())
		}
	})
}

// The float fast path must equal strconv.ParseFloat bit for bit.
func TestNumberMatchesParseFloat(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 7))
	for i := 0; i < 200000; i++ {
		s := strconv.FormatFloat(r.NormFloat64()*math.Pow(10, float64(r.IntN(12)-4)), 'f', r.IntN(14)+1, 64)
		d := decoder{buf: []byte(s)}
		_, got, isInt, err := d.number()
		want, _ := strconv.ParseFloat(s, 64)
		if err != nil || isInt || math.Float64bits(got) != math.Float64bits(want) {
			t.Fatalf("%s: got %v (%v), want %v", s, got, err, want)
		}
	}
}
