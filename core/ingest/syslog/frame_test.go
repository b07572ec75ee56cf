package syslog

import (
	"errors"
	"io"
	"strings"
	"testing"
	"time"

	"github.com/aplite/aplite/core/store"
)

// herokuBody is the logplex body of Heroku's HTTPS drain documentation:
// two octet-counted frames, each ending in a newline the count includes.
const herokuBody = "120 <40>1 2012-11-30T06:45:29+00:00 heroku web.3 d.73ea7440-270a-435a-a0ea-adf50b4e5f5a - State changed from starting to up\n" +
	"156 <40>1 2012-11-30T06:45:26+00:00 heroku web.3 d.73ea7440-270a-435a-a0ea-adf50b4e5f5a - Starting process with command `bundle exec rackup config.ru -p 24405`\n"

type split struct {
	frame string
	err   string
}

func splitAll(body string) []split {
	var out []split
	SplitFrames([]byte(body), func(f []byte, err error) {
		s := split{frame: string(f)}
		if err != nil {
			s.err = err.Error()
		}
		out = append(out, s)
	})
	return out
}

func TestSplitFrames(t *testing.T) {
	got := splitAll(herokuBody)
	if len(got) != 2 || got[0].err != "" || got[1].err != "" ||
		!strings.HasSuffix(got[0].frame, "from starting to up\n") || !strings.HasSuffix(got[1].frame, "-p 24405`\n") {
		t.Fatalf("heroku body split into %q", got)
	}
	// A count past the end fails its line; the frames after it are read.
	got = splitAll("5 <13>x\n900 <13>1 - - - - - - lost\n<13>newline framed\n7 <13>abc")
	want := []split{{frame: "<13>x"}, {frame: "900 <13>1 - - - - - - lost", err: "octet count 900 runs past the end"},
		{frame: "<13>newline framed"}, {frame: "<13>abc"}}
	if len(got) != len(want) {
		t.Fatalf("got %q, want %q", got, want)
	}
	for i := range want {
		if got[i].frame != want[i].frame || !strings.HasPrefix(got[i].err, want[i].err) || (want[i].err == "") != (got[i].err == "") {
			t.Errorf("frame %d = %q, want %q", i, got[i], want[i])
		}
	}
}

func readAll(t *testing.T, in string, max int) ([]string, error) {
	t.Helper()
	r := NewReader(strings.NewReader(in), max)
	var out []string
	for {
		f, err := r.Next()
		if err != nil {
			return out, err
		}
		out = append(out, string(f))
	}
}

func TestReader(t *testing.T) {
	in := "11 <13>1 - - -\n<14>line one\r\n\n<15>line two\n13 <13>octet two<13>last line without newline"
	got, err := readAll(t, in, 0)
	want := []string{"<13>1 - - -", "<14>line one\r", "<15>line two", "<13>octet two", "<13>last line without newline"}
	if err != io.EOF || strings.Join(got, "|") != strings.Join(want, "|") {
		t.Fatalf("got %q, %v; want %q, EOF", got, err, want)
	}
	// A count over the limit, and a line over it, end the stream.
	if got, err := readAll(t, "5 <13>a\n65537 <13>...", 0); !errors.Is(err, ErrFrameTooLong) || len(got) != 1 {
		t.Errorf("over-long count: %q, %v", got, err)
	}
	if _, err := readAll(t, "<13>"+strings.Repeat("x", 100)+"\n", 50); !errors.Is(err, ErrFrameTooLong) {
		t.Errorf("over-long line: %v", err)
	}
	// A stream that ends inside an octet-counted frame is cut short.
	if _, err := readAll(t, "50 <13>short", 0); err != io.ErrUnexpectedEOF {
		t.Errorf("cut frame: %v, want unexpected EOF", err)
	}
}

func TestDecodeBody(t *testing.T) {
	b := store.NewRowsBuilder()
	res := Decode([]byte(herokuBody+"4 <9>\n12 <300>1 - - -\n"), now, b)
	if res.Ingested != 3 || res.Failed != 1 || len(res.Failures) != 1 ||
		res.Failures[0].Error != "frame 4: PRI 300: the largest is 191 (local7.debug)" {
		t.Fatalf("result %+v", res)
	}
	rows := b.Finish(now)
	if rows.N != 3 {
		t.Fatalf("%d rows", rows.N)
	}
	col := func(name string) []string {
		for i, k := range rows.Keys {
			if k.Name == name {
				return rows.Cols[i].Strs[:rows.N]
			}
		}
		t.Fatalf("no column %s in %v", name, rows.Keys)
		return nil
	}
	if got := col(FieldApplication); got[0] != "web.3" || got[1] != "web.3" {
		t.Errorf("application = %q", got)
	}
	if got := col(FieldMessage); got[0] != "State changed from starting to up" {
		t.Errorf("message = %q", got)
	}
	if got := col(FieldSeverity); got[0] != "emergency" || got[2] != "alert" {
		t.Errorf("severity = %q", got)
	}
	if got := col(FieldFacility); got[0] != "syslog" || got[2] != "user" {
		t.Errorf("facility = %q", got)
	}
	if rows.Time[0] != ts("2012-11-30T06:45:29Z") || rows.Time[2] != now {
		t.Errorf("_time = %v", rows.Time)
	}
}

// A short message from a sender that then stays quiet is returned at
// once: the reader must not wait for bytes an octet count would need
// (a ten-byte peek held "<13>hi\n" until the connection closed). A count
// arriving a byte at a time is still read as one.
func TestReaderShortMessageFromQuietSender(t *testing.T) {
	for _, tc := range []struct{ send, want string }{
		{"<13>hi\n", "<13>hi"},
		{"7\n", "7"},
		{"12345\n", "12345"},
		{"4 <9>x", "<9>x"},
	} {
		pr, pw := io.Pipe()
		r := NewReader(pr, 0)
		go func() {
			for i := range len(tc.send) { // a byte a write, then silence
				if _, err := pw.Write([]byte{tc.send[i]}); err != nil {
					return
				}
			}
		}()
		got := make(chan string, 1)
		go func() {
			f, err := r.Next()
			if err != nil {
				got <- "error: " + err.Error()
				return
			}
			got <- string(f)
		}()
		select {
		case g := <-got:
			if g != tc.want {
				t.Errorf("%q: got %q, want %q", tc.send, g, tc.want)
			}
		case <-time.After(10 * time.Second):
			t.Errorf("%q: no frame while the sender is quiet", tc.send)
		}
		pw.Close()
	}
}
