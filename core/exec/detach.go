package exec

import (
	"strings"
	"unsafe"
)

// A stream chunk's strings share a few large arena blocks (core/ingest's
// arena), and one string keeps its whole block alive. A filter that keeps
// one event in twenty of a file read in place therefore held every block
// of every chunk: `where status == 500` over 10M events peaked at 3.4 GB
// for a 490k-row answer. Collected rows of a run over streams copy their
// strings out, into one allocation per column.

// detachStrings replaces the string columns of b, compacted, with copies
// that share no memory with the decoded chunk. The vectors are replaced,
// not changed: another batch may view the same ones. dicts holds the
// dictionaries copied so far, by their first element: the batches of one
// chunk share its dictionaries, which are copied once.
func detachStrings(b *Batch, dicts map[*string][]string) {
	for i, v := range b.Cols {
		if v == nil || v.Strs == nil && v.Dict == nil && v.Dyns == nil {
			continue
		}
		nv := *v
		nv.Strs = cloneStrs(v.Strs)
		if len(v.Dict) > 0 {
			d, ok := dicts[&v.Dict[0]]
			if !ok {
				d = cloneStrs(v.Dict)
				dicts[&v.Dict[0]] = d
			}
			nv.Dict = d
		}
		if v.Dyns != nil {
			nv.Dyns = make([]any, len(v.Dyns))
			for j, d := range v.Dyns {
				nv.Dyns[j] = cloneDynamic(d)
			}
		}
		b.Cols[i] = &nv
	}
}

// cloneStrs copies ss into a new slice whose strings share one buffer.
func cloneStrs(ss []string) []string {
	if ss == nil {
		return nil
	}
	n := 0
	for _, s := range ss {
		n += len(s)
	}
	buf := make([]byte, 0, n)
	out := make([]string, len(ss))
	for i, s := range ss {
		if s == "" {
			continue
		}
		at := len(buf)
		buf = append(buf, s...)
		out[i] = unsafe.String(&buf[at], len(s))
	}
	return out
}

// cloneDynamic copies the strings of a dynamic value, keys included.
func cloneDynamic(v any) any {
	switch x := v.(type) {
	case string:
		return strings.Clone(x)
	case []any:
		out := make([]any, len(x))
		for i, e := range x {
			out[i] = cloneDynamic(e)
		}
		return out
	case map[string]any:
		out := make(map[string]any, len(x))
		for k, e := range x {
			out[strings.Clone(k)] = cloneDynamic(e)
		}
		return out
	}
	return v
}
