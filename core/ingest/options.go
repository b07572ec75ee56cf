package ingest

import "time"

// Default limits, used when the matching Options field is zero.
const (
	DefaultTimestampField  = "_time"
	DefaultMaxFieldNameLen = 200
	DefaultMaxFields       = 4096
	DefaultMaxDepth        = 64
	DefaultMaxFailures     = 1000
)

// maxMaxDepth caps MaxDepth: the decoder recurses once per level it keeps.
const maxMaxDepth = 10000

// Options configure one Decode call (one ingest request).
type Options struct {
	Format Format
	// TimestampField names the field holding each event's time (the
	// timestamp-field query parameter); default "_time". A "_time" field is
	// consumed into the event time; any other named field is kept as a
	// regular field as well, so no user value disappears.
	TimestampField string
	// TimestampFormat is a Go reference-time layout (timestamp-format);
	// empty means auto-detect (RFC 3339 with any offset, naive ISO 8601 as
	// UTC, Unix seconds/ms/µs/ns numbers or numeric strings).
	TimestampFormat string
	// CSVDelimiter separates CSV fields; default ','.
	CSVDelimiter rune
	// CSVFields are the CSV column names when the body has no header row
	// (X-Axiom-CSV-Fields); empty means the first row is the header.
	CSVFields []string
	// CSVDeclared is for a reader that declares the columns and their
	// types itself (externaldata) in CSVFields: every cell is kept as the
	// string it is written as (an empty cell an empty string), since
	// "1.50" or "TRUE" typed as a number or a bool would lose how they
	// were written; a short row leaves its last fields unset and cells
	// past the declared fields are ignored, as KQL reads such a file.
	CSVDeclared bool
	// Labels (X-Axiom-Event-Labels, see ParseLabels) are added as top-level
	// fields to every event, flattened like event fields. A field of the
	// event itself wins over a label of the same name.
	Labels map[string]any
	// LabelsHeaderLen is the byte length of the X-Axiom-Event-Labels header
	// value; Axiom counts it in processedBytes, so Decode adds it there.
	LabelsHeaderLen int
	// MapFields are field names (top-level keys, or dotted paths) whose
	// object values stay one dynamic field instead of being flattened.
	MapFields map[string]bool
	// Keep, when set, projects the events: a field whose (flattened) path
	// it rejects is checked for syntax but not stored. It must accept the
	// parents of the paths it accepts ("geo" for "geo.city"). The time
	// field is always read. Queries over files use it to build only the
	// columns they read.
	Keep func(path string) bool
	// Now is the ingest time in ns since the epoch: the _time of events
	// without one, and the timestamp of failures. Zero means time.Now().
	Now int64
	// MaxFieldNameLen is the longest accepted (flattened) field name in
	// bytes; an event with a longer one fails. Default 200.
	MaxFieldNameLen int
	// MaxFields is the number of distinct field names one request may
	// introduce; an event that would exceed it fails. Default 4096.
	MaxFields int
	// MaxDepth is the deepest nesting of objects and arrays inside an event
	// (the event object is depth 1); a deeper event fails. Default 64.
	MaxDepth int
	// MaxFailures caps the Failures list (Failed still counts them all).
	// Default 1000.
	MaxFailures int
}

// withDefaults fills the zero fields of o.
func (o Options) withDefaults() Options {
	if o.TimestampField == "" {
		o.TimestampField = DefaultTimestampField
	}
	if o.CSVDelimiter == 0 {
		o.CSVDelimiter = ','
	}
	if o.MaxFieldNameLen <= 0 {
		o.MaxFieldNameLen = DefaultMaxFieldNameLen
	}
	if o.MaxFields <= 0 {
		o.MaxFields = DefaultMaxFields
	}
	if o.MaxDepth <= 0 {
		o.MaxDepth = DefaultMaxDepth
	}
	o.MaxDepth = min(o.MaxDepth, maxMaxDepth)
	if o.MaxFailures <= 0 {
		o.MaxFailures = DefaultMaxFailures
	}
	if o.Now == 0 {
		o.Now = time.Now().UnixNano()
	}
	return o
}

// Failure describes one event that was not ingested. Its JSON form is the
// Axiom ingest status entry {"timestamp": "...Z", "error": "..."}.
type Failure struct {
	Timestamp time.Time `json:"timestamp"`
	Error     string    `json:"error"`
}

// Result counts what one Decode call did, in the shape of Axiom's ingest
// status. ProcessedBytes is len(body) + Options.LabelsHeaderLen, where body
// is the decompressed body.
// Failures is never nil, so it marshals as [] (clients require the key).
type Result struct {
	Ingested       int       `json:"ingested"`
	Failed         int       `json:"failed"`
	Failures       []Failure `json:"failures"`
	ProcessedBytes int64     `json:"processedBytes"`
}
