package server

import (
	"bytes"
	"encoding/base64"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"
	"unsafe"
)

// generalDelivery is what the door did before scanDelivery: sonic reads
// the envelope, then each record is decoded, into b.
func generalDelivery(b *firehoseBuf, body []byte, limit int64) ([]byte, string, error) {
	req := firehoseRequest{Records: b.recs[:0]}
	defer b.keepRecords(&req)
	if err := firehoseJSON.UnmarshalFromString(unsafe.String(unsafe.SliceData(body), len(body)), &req); err != nil {
		return nil, "", envelopeError(body)
	}
	events, err := b.events(req.Records, limit)
	return events, req.RequestID, err
}

// sameDelivery fails unless delivery (the scan, or the general path
// when the scan gives up) answers body as the general path alone does,
// and reports whether the scan took it.
func sameDelivery(t *testing.T, body []byte, limit int64) (scanned bool) {
	t.Helper()
	wantEv, wantID, wantErr := generalDelivery(new(firehoseBuf), body, limit)
	events, id, err := new(firehoseBuf).delivery(body, limit)
	if (err == nil) != (wantErr == nil) || err != nil && err.Error() != wantErr.Error() {
		t.Fatalf("%.200q: error %v, the general path's %v", body, err, wantErr)
	}
	if !bytes.Equal(events, wantEv) || id != wantID {
		t.Fatalf("%.200q: events %q id %q, the general path's %q %q", body, events, id, wantEv, wantID)
	}
	_, _, scanned = new(firehoseBuf).scanDelivery(body, limit)
	return scanned
}

func b64(s string) string { return base64.StdEncoding.EncodeToString([]byte(s)) }

// Deliveries in Firehose's own shape are read by the scan, and every
// other body, odd or broken, gets the answer the general decoder gives.
func TestFirehoseScanMatchesGeneralPath(t *testing.T) {
	long := `{"msg":"` + strings.Repeat("abcdefghij", 40) + `"}`
	rec := func(data ...string) string {
		var b strings.Builder
		for i, d := range data {
			if i > 0 {
				b.WriteString(",")
			}
			b.WriteString(`{"data":"` + d + `"}`)
		}
		return b.String()
	}
	for _, tc := range []struct {
		body    string
		scanned bool
	}{
		{`{"requestId":"r1","timestamp":1700000000000,"records":[` + rec(b64(`{"a":1}`+"\n"), b64(long), b64("plain line\nsecond"), b64("{\n \"a\": 2\n}")) + `]}`, true},
		{`{"records":[` + rec(b64(long+"\n"+long)) + `],"timestamp":-5,"requestId":"r2"}`, true},
		{" {\n\t\"requestId\" : \"r3\" ,\r\n \"records\" : [ { \"data\" : \"" + b64(long) + "\" } ] } \n", true},
		{`{"requestId":"r4","timestamp":1,"records":[]}`, true},
		{`{}`, true},
		{`{"requestId":"r5","records":[` + rec("", strings.TrimRight(b64("ab"), "="), strings.TrimRight(b64(long), "=")) + `]}`, true},
		{`{"requestId":"r6","records":[` + rec(b64(string(gzipped([]byte(long+"\n"+long))))) + `]}`, true},
		// The general path: escapes, other keys and values, broken JSON.
		{`{"requestId":"r\u0037","records":[` + rec(b64(long)) + `]}`, false},
		{`{"requestId":"r8","records":[` + rec(`Pz8\/`+b64(long)) + `]}`, false},
		{`{"requestId":"r9","records":[` + rec(b64(long)[:40]+`\n`+b64(long)[40:]) + `]}`, false},
		{`{"requestId":"r10","extra":{"x":[1,2]},"records":[` + rec(b64("x")) + `]}`, false},
		{`{"requestId":"r11","records":[{"data":"` + b64("x") + `","other":1}]}`, false},
		{`{"RequestId":"r12","records":[` + rec(b64("x")) + `]}`, false},
		{`{"requestId":"r13","timestamp":1.5,"records":[]}`, false},
		{`{"requestId":"r14","timestamp":"1","records":[]}`, false},
		{`{"requestId":"r15","records":null}`, false},
		{`{"requestId":"r16","records":[` + rec(b64("x")) + `],"records":[` + rec(b64("y")) + `]}`, false},
		{`{"requestId":"r17","records":[` + rec("not base64!") + `]}`, false},
		{`{"requestId":"r18","records":[` + rec(b64(long)[:41]) + `]}`, false},
		{`{"requestId":"r19","records":[` + rec(b64(long)) + `]`, false},
		{`{"requestId":"r20","records":[` + rec(b64(long)) + `]} x`, false},
		{`[{"data":"eA=="}]`, false},
		{`{"requestId":"r22","records":[{"data":12}]}`, false},
		{``, false},
	} {
		if got := sameDelivery(t, []byte(tc.body), 1<<20); got != tc.scanned {
			t.Errorf("%.120q: scanned %v, want %v", tc.body, got, tc.scanned)
		}
	}
}

// A delivery that decodes past the limit is refused with 413 either way.
func TestFirehoseScanLimit(t *testing.T) {
	body := []byte(`{"requestId":"big","records":[{"data":"` + b64(strings.Repeat("x", 500)) + `"},{"data":"` + b64(strings.Repeat("y", 500)) + `"}]}`)
	sameDelivery(t, body, 700)
	_, _, err := new(firehoseBuf).delivery(body, 700)
	if ae := asAPIError(err); ae.Status != 413 || !strings.Contains(ae.Message, "records[1].data") {
		t.Fatalf("%v", err)
	}
}

// decodeBase64 decodes what encoding/base64 decodes, padded or not, at
// every length around the SIMD decoder's blocks, and refuses line
// breaks, misplaced padding and characters outside the alphabet.
func TestDecodeBase64(t *testing.T) {
	src := make([]byte, 300)
	for i := range src {
		src[i] = byte(i*7 + i/3)
	}
	dst := make([]byte, 400)
	for n := range len(src) {
		for _, enc := range []*base64.Encoding{base64.StdEncoding, base64.RawStdEncoding} {
			in := []byte(enc.EncodeToString(src[:n]))
			m, ok := decodeBase64(dst, in)
			if !ok || !bytes.Equal(dst[:m], src[:n]) {
				t.Fatalf("%d bytes %q: %v %x", n, in, ok, dst[:m])
			}
			for _, bad := range [][]byte{
				append(append(append([]byte{}, in[:len(in)/2]...), '\n'), in[len(in)/2:]...),
				append(append([]byte{}, in...), '='),
				append([]byte("=A"), in...),
				append(append([]byte{}, in...), '-'),
				append(append([]byte{}, in...), 'A'),
			} {
				m, ok := decodeBase64(dst, bad)
				lib, err := base64.StdEncoding.DecodeString(string(bad))
				if err != nil {
					lib, err = base64.RawStdEncoding.DecodeString(string(bad))
				}
				switch {
				case ok && (err != nil || bytes.IndexByte(bad, '\n') >= 0):
					t.Fatalf("%q decoded: the library refuses it, or it has a line break", bad)
				case ok && !bytes.Equal(dst[:m], lib):
					t.Fatalf("%q decoded to %x, the library to %x", bad, dst[:m], lib)
				}
			}
		}
	}
}

// FuzzFirehoseScan: whatever the scan takes, the general path stores the
// same way.
func FuzzFirehoseScan(f *testing.F) {
	f.Add([]byte(`{"requestId":"r","timestamp":1,"records":[{"data":"eyJhIjoxfQo="},{"data":"bGluZQ"}]}`))
	f.Add([]byte(`{"records":[{"data":"H4sIAAAAAAAA/6pWSlSyMqzlAgQAAP//2Ayb7QkAAAA="}]}`))
	f.Add([]byte(`{"requestId":"r","records":[{"data":"e30K\nCg=="}]}`))
	f.Fuzz(func(t *testing.T, body []byte) {
		events, id, ok := new(firehoseBuf).scanDelivery(body, 1<<16)
		if !ok {
			return
		}
		wantEv, wantID, err := generalDelivery(new(firehoseBuf), body, 1<<16)
		if err != nil || !bytes.Equal(events, wantEv) || string(id) != wantID {
			t.Fatalf("%q: scan %q %q, general %q %q %v", body, events, id, wantEv, wantID, err)
		}
	})
}

// A record in unpadded base64 (RFC 4648 allows leaving the padding out)
// is stored, through the scan and through the general path (an extra
// key): the general path used to size the decoded record by its padded
// length and failed with 500 on such a record.
func TestFirehoseUnpaddedRecord(t *testing.T) {
	ts := newTestServer(t)
	ts.createDataset("fh")
	key := ts.newToken(map[string]any{"fh": map[string]any{"ingest": []string{"create"}}}, nil).Token
	before := time.Now()
	for i, body := range []string{
		`{"requestId":"u1","timestamp":1,"records":[{"data":"YWI"}]}`,
		`{"requestId":"u2","timestamp":1,"records":[{"data":"YWI"}],"extra":1}`,
	} {
		id := fmt.Sprintf("u%d", i+1)
		firehoseAnswer(t, ts.firehose("fh", key, id, body, ""), 200, id, before)
	}
	if got := ts.rowsOf("['fh'] | where _time > ago(1d)", "message"); !slices.Equal(got, []string{"message=ab", "message=ab"}) {
		t.Fatalf("stored %q", got)
	}
}
