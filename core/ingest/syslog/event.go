package syslog

import (
	"fmt"
	"time"

	"github.com/aplite/aplite/core/ingest"
	"github.com/aplite/aplite/core/store"
	"github.com/aplite/aplite/vector"
)

// The fields a message becomes. hostname, application, severity, message
// and remoteAddress are the names Axiom's syslog proxy writes, so queries
// written against it keep working; the rest are RFC 5424's names.
const (
	FieldHostname       = "hostname"
	FieldApplication    = "application"
	FieldProcID         = "procid"
	FieldMsgID          = "msgid"
	FieldFacility       = "facility"
	FieldSeverity       = "severity"
	FieldStructuredData = "structuredData"
	FieldMessage        = "message"
	FieldRemoteAddress  = "remoteAddress"
)

// severityNames are the severity codes 0 to 7 as Axiom's syslog proxy
// writes them.
var severityNames = [8]string{"emergency", "alert", "critical", "error", "warning", "notice", "info", "debug"}

// facilityNames are the facility codes 0 to 23 by the keywords syslog.conf
// uses (RFC 5424 section 6.2.1 lists their meanings).
var facilityNames = [24]string{"kern", "user", "mail", "daemon", "auth", "syslog", "lpr", "news",
	"uucp", "cron", "authpriv", "ftp", "ntp", "security", "console", "solaris-cron",
	"local0", "local1", "local2", "local3", "local4", "local5", "local6", "local7"}

// SeverityName returns the name stored for severity code c (0 to 7).
func SeverityName(c int) string { return severityNames[c&7] }

// FacilityName returns the name stored for facility code c (0 to 23).
func FacilityName(c int) string {
	if c < 0 || c >= len(facilityNames) {
		return fmt.Sprint(c)
	}
	return facilityNames[c]
}

// field indexes Writer.refs.
const (
	fHostname = iota
	fApplication
	fProcID
	fMsgID
	fFacility
	fSeverity
	fStructuredData
	fMessage
	fRemoteAddress
	nFields
)

var fieldKeys = [nFields]store.ColKey{
	{Name: FieldHostname, Type: vector.String},
	{Name: FieldApplication, Type: vector.String},
	{Name: FieldProcID, Type: vector.String},
	{Name: FieldMsgID, Type: vector.String},
	{Name: FieldFacility, Type: vector.String},
	{Name: FieldSeverity, Type: vector.String},
	{Name: FieldStructuredData, Type: vector.Dynamic},
	{Name: FieldMessage, Type: vector.String},
	{Name: FieldRemoteAddress, Type: vector.String},
}

// Writer adds messages to a store.RowsBuilder as events. It keeps the
// builder's column handles, so it must see every event of the builder
// until Finish and no event may be aborted in between.
type Writer struct {
	b    *store.RowsBuilder
	refs [nFields]int // column handle + 1; 0: not made yet (a column only exists once set)
}

// NewWriter returns a Writer filling b.
func NewWriter(b *store.RowsBuilder) *Writer { return &Writer{b: b} }

// Builder returns the builder the Writer fills.
func (w *Writer) Builder() *store.RowsBuilder { return w.b }

func (w *Writer) setString(f int, v string) {
	if v == "" {
		return
	}
	if w.refs[f] == 0 {
		w.refs[f] = w.b.Ref(fieldKeys[f]) + 1
	}
	w.b.SetStringAt(w.refs[f]-1, v)
}

// Add adds m as one event: its timestamp as _time (else now), its header
// fields, structured data as one map value, and the message. remote, when
// not "", is stored as remoteAddress (the sender as the listener saw it).
func (w *Writer) Add(m *Message, remote string, now int64) {
	b := w.b
	b.Begin()
	if m.HasTime {
		b.SetTime(m.Time)
	}
	w.setString(fHostname, m.Hostname)
	w.setString(fApplication, m.AppName)
	w.setString(fProcID, m.ProcID)
	w.setString(fMsgID, m.MsgID)
	w.setString(fFacility, FacilityName(m.Facility()))
	w.setString(fSeverity, SeverityName(m.Severity()))
	if m.StructuredData != nil {
		if w.refs[fStructuredData] == 0 {
			w.refs[fStructuredData] = b.Ref(fieldKeys[fStructuredData]) + 1
		}
		b.SetDynamicAt(w.refs[fStructuredData]-1, m.StructuredData)
	}
	w.setString(fMessage, m.Text)
	w.setString(fRemoteAddress, remote)
	b.End(now)
}

// Batch collects the events of one batch of frames and what failed.
type Batch struct {
	w      *Writer
	res    ingest.Result
	frames int
	max    int
}

// NewBatch returns a batch filling b; at most maxFailures failures are
// listed (ingest.DefaultMaxFailures when <= 0), all are counted.
func NewBatch(b *store.RowsBuilder, maxFailures int) *Batch {
	if maxFailures <= 0 {
		maxFailures = ingest.DefaultMaxFailures
	}
	return &Batch{w: NewWriter(b), max: maxFailures, res: ingest.Result{Failures: []ingest.Failure{}}}
}

// Add parses frame (or takes the framing error ferr) as the batch's next
// message and adds it as an event; a frame that does not parse is a
// failure naming its 1-based number, and the batch goes on.
func (bt *Batch) Add(frame []byte, ferr error, remote string, now int64) {
	bt.frames++
	bt.res.ProcessedBytes += int64(len(frame))
	err := ferr
	if err == nil {
		var m Message
		if m, err = Parse(frame, now); err == nil {
			bt.w.Add(&m, remote, now)
			bt.res.Ingested++
			return
		}
	}
	bt.res.Failed++
	if len(bt.res.Failures) < bt.max {
		bt.res.Failures = append(bt.res.Failures, ingest.Failure{
			Timestamp: time.Unix(0, now).UTC(),
			Error:     fmt.Sprintf("frame %d: %v", bt.frames, err),
		})
	}
}

// Result returns what the batch read and failed so far.
func (bt *Batch) Result() ingest.Result { return bt.res }

// Frames returns the number of frames added so far.
func (bt *Batch) Frames() int { return bt.frames }

// Decode reads every frame of body (SplitFrames) into b, one event per
// message, and returns the counts in the shape of Axiom's ingest status;
// ProcessedBytes is len(body).
func Decode(body []byte, now int64, b *store.RowsBuilder) ingest.Result {
	bt := NewBatch(b, 0)
	SplitFrames(body, func(frame []byte, err error) { bt.Add(frame, err, "", now) })
	res := bt.Result()
	res.ProcessedBytes = int64(len(body))
	return res
}
