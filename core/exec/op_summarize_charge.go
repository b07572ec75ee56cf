package exec

import "github.com/aplite/aplite/vector"

// inFlight estimates what a summarize holds while it consumes one batch:
// the key and argument columns it computes and its group ids. None of it
// is kept, but eight queries' workers each computing a tostring() key
// over a batch were a third of a heap the budget did not see; it is
// charged for the length of the call. The batch's own columns are not:
// the stages that built them, or the sink that keeps them, charged them
// (memcharge.go), and a scan's are one granule's.
func (sk *aggSink) inFlight(b *Batch, keys []*vector.Vector) int64 {
	n := int64(0)
	for _, k := range keys {
		if !holds(b.Cols, k) {
			n += vecBytes(k)
		}
	}
	args := 0
	for _, a := range sk.st.Aggs {
		args += len(a.Args)
	}
	// An argument is computed per aggregation (a dynamic or string one
	// costs about 24 bytes a row); the group ids are 4.
	return n + int64(b.N)*int64(24*args+4)
}

// vecBytes estimates what v's rows hold, in O(1): its payload, and for
// strings and dynamic values a small allocation each beyond the header.
func vecBytes(v *vector.Vector) int64 {
	if v == nil || v.Const {
		return 0
	}
	n := int64(v.Len)
	switch v.Type {
	case vector.String:
		if v.Codes != nil {
			return 4 * n
		}
		return 32 * n
	case vector.Dynamic:
		return 24 * n
	case vector.Bool:
		return n
	}
	return 8 * n
}
