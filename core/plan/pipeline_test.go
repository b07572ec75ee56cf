package plan

import (
	"errors"
	"strings"
	"testing"
)

// TestDecodePipelineRefuses checks that a pipeline this node cannot run
// is refused by name, however deep the unknown kind is nested.
func TestDecodePipelineRefuses(t *testing.T) {
	cases := []struct {
		js, want string
		unsup    bool
	}{
		{`{"v":2,"source":{"k":"scan","schema":[]},"stages":[]}`, "version 2", true},
		{`{"v":1,"source":{"k":"tape","schema":[]},"stages":[]}`, `source kind "tape"`, true},
		{`{"v":1,"source":{"k":"sub","schema":[],"sub":{"source":{"k":"scan","schema":[]},"stages":[{"k":"pivot"}]}},"stages":[]}`, `stage kind "pivot"`, true},
		{`{"v":1,"source":{"k":"scan","schema":[]},"stages":[{"k":"union","legs":[{"pipe":{"source":{"k":"warp","schema":[]},"stages":[]}}]}]}`, `source kind "warp"`, true},
		{`{"v":1,"source":{"k":"table","schema":[{"name":"a","type":2}],"cols":[[{"k":"col","t":2}]]},"stages":[]}`, "not a constant", false},
		{`{"v":1,"source":{"k":"table","schema":[],"cols":[[{"k":"const","t":2,"v":"1"}],[]]},"stages":[]}`, "columns of 1 and 0 rows", false},
		{`{"v":1,"source":{"k":"table","schema":[],"cols":[[{"k":"const","t":2,"v":"x"}]]},"stages":[]}`, "constant of type", false},
	}
	for _, c := range cases {
		_, err := DecodePipeline([]byte(c.js))
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: got %v, want an error naming %s", c.js, err, c.want)
			continue
		}
		if errors.Is(err, ErrUnsupported) != c.unsup {
			t.Errorf("%s: %v: unsupported is %v", c.js, err, !c.unsup)
		}
	}
}

// TestPipelineEncodesExactly checks that a decoded table's constants
// re-encode to the same bytes, the property the round-trip test of the
// core package compares plans by.
func TestPipelineEncodesExactly(t *testing.T) {
	js := `{"v":1,"source":{"k":"table","schema":[{"name":"a","type":2},{"name":"d","type":7}],` +
		`"cols":[[{"k":"const","t":2,"v":"-9223372036854775808"},{"k":"const","t":2}],` +
		`[{"k":"const","t":7,"v":{"a":[{"i":"1"},{"f":"NaN"}]}},{"k":"const","t":7,"v":{"m":{"k":{"s":"x"}}}}]]},"stages":[]}`
	p, err := DecodePipeline([]byte(js))
	if err != nil {
		t.Fatal(err)
	}
	got, err := p.Encode()
	if err != nil {
		t.Fatal(err)
	}
	if string(got) != js {
		t.Errorf("re-encoded\n%s\nwant\n%s", got, js)
	}
}
