package syslog

import (
	"bytes"
	"testing"
	"unicode/utf8"

	"github.com/aplite/aplite/core/store"
)

// FuzzSyslog holds the reader to what hostile input may never do: panic,
// lose count of a frame, or store a string that is not valid UTF-8. Every
// frame is either an event or a failure, and the same bytes read through
// the stream Reader give the same frames as SplitFrames when they parse
// cleanly. Seeds are in testdata/fuzz/FuzzSyslog.
func FuzzSyslog(f *testing.F) {
	f.Add([]byte(herokuBody))
	f.Add([]byte("<34>1 2003-10-11T22:14:15.003Z mymachine.example.com su - ID47 - \xEF\xBB\xBF'su root' failed\n"))
	f.Add([]byte(`<165>1 2003-10-11T22:14:15.003Z h evntslog - ID47 [a@1 iut="3" x="\"\]\\"][b@2 c="d"] msg` + "\n"))
	f.Add([]byte("<38>Nov  8 10:01:02 myhost sshd[4242]: Accepted\n<13>plain\n"))
	f.Fuzz(func(t *testing.T, body []byte) {
		var frames int
		SplitFrames(body, func([]byte, error) { frames++ })
		b := store.NewRowsBuilder()
		res := Decode(body, now, b)
		if res.Ingested+res.Failed != frames {
			t.Fatalf("%d ingested + %d failed != %d frames", res.Ingested, res.Failed, frames)
		}
		rows := b.Finish(now)
		if rows.N != res.Ingested {
			t.Fatalf("%d rows for %d ingested", rows.N, res.Ingested)
		}
		for i, c := range rows.Cols {
			for _, s := range c.Strs {
				if !utf8.ValidString(s) {
					t.Fatalf("column %s holds invalid UTF-8 %q", rows.Keys[i].Name, s)
				}
			}
		}
		r := NewReader(bytes.NewReader(body), len(body)+1)
		n := 0
		for {
			if _, err := r.Next(); err != nil {
				break
			}
			n++
		}
		if n > frames {
			t.Fatalf("the stream reader found %d frames, SplitFrames %d", n, frames)
		}
	})
}
