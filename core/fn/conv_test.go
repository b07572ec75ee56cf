package fn

import (
	"math"
	"testing"
	"time"

	"github.com/aplite/aplite/internal/testutil"
	"github.com/aplite/aplite/vector"
)

func TestConversionFunctions(t *testing.T) {
	ts := time.Date(2024, 1, 15, 14, 0, 0, 0, time.UTC)
	xRunCases(t, []xCase{
		{"tostring", []any{123}, "123"},
		{"tostring", []any{1.5}, "1.5"},
		{"tostring", []any{true}, "true"},
		{"tostring", []any{ts}, "2024-01-15T14:00:00Z"},
		{"tostring", []any{90 * time.Second}, "1m30s"},
		{"tostring", []any{map[string]any{"b": []any{int64(1)}, "a": "x"}}, `{"a":"x","b":[1]}`},
		{"tostring", []any{xNullStr}, ""},
		{"tostring", []any{nil}, ""},
		{"tolong", []any{"123"}, int64(123)},
		{"toint", []any{2.9}, int64(2)},
		{"toint", []any{-2.9}, int64(-2)},
		{"toint", []any{"abc"}, nil},
		{"toint", []any{true}, int64(1)},
		{"toint", []any{math.NaN()}, nil},
		{"toint", []any{xNullStr}, nil},
		{"todouble", []any{"1.5e3"}, 1500.0},
		{"toreal", []any{int64(7)}, 7.0},
		{"toreal", []any{"nope"}, nil},
		{"tobool", []any{"TRUE"}, true},
		{"tobool", []any{"false"}, false},
		{"tobool", []any{int64(0)}, false},
		{"tobool", []any{"maybe"}, nil},
		{"todatetime", []any{"2024-01-15 14:00:00"}, ts},
		{"todatetime", []any{"2024-01-15T16:00:00+02:00"}, ts},
		{"todatetime", []any{"garbage"}, nil},
		{"todatetime", []any{int64(5)}, nil},
		{"totimespan", []any{"00:00:01.5"}, 1500 * time.Millisecond},
		{"totimespan", []any{"1.00:00:00"}, 24 * time.Hour},
		{"totimespan", []any{int64(1500000000)}, 1500 * time.Millisecond},
		{"totimespan", []any{"1.5h"}, 90 * time.Minute},
		{"totimespan", []any{"soon"}, nil},
		{"todynamic", []any{`{"a":[1,2.5]}`}, map[string]any{"a": []any{int64(1), 2.5}}},
		{"todynamic", []any{int64(4)}, int64(4)},
		{"dynamic_to_json", []any{map[string]any{"z": nil, "a": 1.0}}, `{"a":1,"z":null}`},
		{"dynamic_to_json", []any{bJ(`[1,"x",{"b":2,"a":null}]`)}, `[1,"x",{"a":null,"b":2}]`},
		// Axiom's page: a value that is not dynamic is its tostring().
		{"dynamic_to_json", []any{"a\"b"}, `a"b`},
		{"dynamic_to_json", []any{int64(42)}, `42`},
		{"dynamic_to_json", []any{math.Inf(1)}, `Infinity`},
		{"toarray", []any{[]any{int64(1)}}, []any{int64(1)}},
		{"toarray", []any{"x"}, []any{"x"}},
		{"toarray", []any{nil}, nil},
		{"isbool", []any{true}, true},
		{"isbool", []any{"true"}, false},
		{"isbool", []any{xTyped{vector.Bool, nil}}, false},
		{"tohex", []any{256}, "100"},
		{"tohex", []any{12345, 8}, "00003039"},
		{"tohex", []any{-1}, "ffffffffffffffff"},
		{"tohex", []any{xTyped{vector.Int, nil}}, nil},
	})
	xRunTypeErrs(t, []xTypeErr{
		{"tohex", []vector.Type{vector.String}, "argument 1 of tohex must be long, got string"},
	})
}

func TestConditionalFunctions(t *testing.T) {
	xRunCases(t, []xCase{
		{"iff", []any{true, "yes", "no"}, "yes"},
		{"iff", []any{false, "yes", "no"}, "no"},
		{"iif", []any{xTyped{vector.Bool, nil}, int64(1), int64(2)}, int64(2)},
		{"iff", []any{true, int64(1), 2.5}, 1.0},
		{"iff", []any{false, "a", int64(1)}, int64(1)},
		{"case", []any{false, "a", true, "b", "c"}, "b"},
		{"case", []any{false, "a", false, "b", "c"}, "c"},
		{"case", []any{true, xNullStr, "c"}, nil},
	})
	xRunTypeErrs(t, []xTypeErr{
		{"iff", []vector.Type{vector.String, vector.Int, vector.Int}, "argument 1 of iff must be bool, got string"},
		{"case", []vector.Type{vector.Bool, vector.Int, vector.Int, vector.Int, vector.Int}, "argument 3 of case must be bool, got long"},
		{"case", []vector.Type{vector.Bool, vector.Int, vector.Bool, vector.Int}, errCaseArity.Error()},
	})
}

func TestIffPerRow(t *testing.T) {
	cond := xCol(vector.Bool, true, false, nil)
	a := xCol(vector.Int, int64(1), int64(2), int64(3))
	b := xConst(vector.Int, int64(-1), 3)
	out, err := Lookup("iff").Eval(&Context{}, []*vector.Vector{cond, a, b}, Dense(3))
	if err != nil {
		t.Fatal(err)
	}
	if got := xValues(out); !testutil.CloseValue(got[0], int64(1), 1e-9) || !testutil.CloseValue(got[1], int64(-1), 1e-9) || !testutil.CloseValue(got[2], int64(-1), 1e-9) {
		t.Fatalf("got %v", got)
	}
}

func TestTypeAndHashFunctions(t *testing.T) {
	xRunCases(t, []xCase{
		{"isstring", []any{"a"}, true},
		{"isstring", []any{int64(1)}, false},
		{"isstring", []any{xNullStr}, false},
		{"isreal", []any{1.5}, true},
		{"isreal", []any{int64(1)}, false},
		{"ismap", []any{map[string]any{}}, true},
		{"ismap", []any{[]any{}}, false},
		{"isutf8", []any{"héllo"}, true},
		{"isutf8", []any{"\xff\xfe"}, false},
		{"isutf8", []any{xNullStr}, false},
		{"iscc", []any{"4111 1111 1111 1111"}, true},
		{"iscc", []any{"4111-1111-1111-1112"}, false},
		{"iscc", []any{"abcd"}, false},
		{"isimei", []any{"490154203237518"}, true},
		{"isimei", []any{"490154203237519"}, false},
		{"hash", []any{""}, int64(-1205034819632174695)}, // XXH64("") = 0xef46db3751d8e999
		{"hash_md5", []any{""}, "d41d8cd98f00b204e9800998ecf8427e"},
		{"hash_sha1", []any{"abc"}, "a9993e364706816aba3e25717850c26c9cd0d89d"},
		{"hash_sha256", []any{"abc"}, "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"},
		{"hash_sha512", []any{""}, "cf83e1357eefb8bdf1542850d66d8007d620e4050b5715dc83f4a921d36ce9ce47d0d13c5d85f2b0ff8318d2877eec2f63b931bd47417a81a538327af927da3e"},
		{"hash_md5", []any{xNullStr}, nil},
	})
	h := func(args ...any) any {
		vs, ts := xArgs(xCase{"hash", args, nil}, 1)
		out, err := xCall("hash", vs, ts, xRows)
		if err != nil {
			t.Fatal(err)
		}
		return out.Value(0)
	}
	if h("a", 1) == h("a", 2) || h("a", 1) != h("a", 1) || h("a") == h("b") {
		t.Error("salted hashes should be deterministic and differ by salt")
	}
	if h(123) != h("123") {
		t.Error("hash of a long should equal hash of its string form")
	}
	xRunTypeErrs(t, []xTypeErr{
		{"hash", []vector.Type{vector.Float}, "argument 1 of hash must be bool, long, string, datetime or timespan, got real"},
	})
}
