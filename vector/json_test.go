package vector

import (
	"encoding/json"
	"reflect"
	"strings"
	"testing"
)

// Integers stay exact int64; fractions, exponents and integers too large
// for int64 become float64; nested objects and arrays are converted too.
func TestJSONNumbers(t *testing.T) {
	dec := json.NewDecoder(strings.NewReader(`{"i":9007199254740993,"neg":-7,"f":1.5,"e":1e3,"big":92233720368547758070,"a":[1,{"x":2.0}],"s":"3"}`))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		t.Fatal(err)
	}
	want := map[string]any{"i": int64(9007199254740993), "neg": int64(-7), "f": 1.5, "e": 1000.0, "big": 92233720368547758070.0,
		"a": []any{int64(1), map[string]any{"x": 2.0}}, "s": "3"}
	if got := JSONNumbers(v); !reflect.DeepEqual(got, want) {
		t.Errorf("got %#v\nwant %#v", got, want)
	}
}
