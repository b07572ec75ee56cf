package session

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"
	"time"

	"github.com/aplite/aplite/db"
)

// Format names accepted by Load. Auto detects the format from the text.
const (
	Auto    = ""
	NDJSON  = "ndjson"
	JSON    = "json"
	CSV     = "csv"
	Tabular = "tabular"
)

// LoadResult tells the console what a Load did.
type LoadResult struct {
	Dataset  string       `json:"dataset"`
	Format   string       `json:"format"`
	Ingested int          `json:"ingested"`
	Failed   int          `json:"failed"`
	Failures []db.Failure `json:"failures"`
}

// maxFailures caps the failures a LoadResult lists: the console shows a
// few, not a thousand.
const maxFailures = 10

// LoadOptions tune one Load.
type LoadOptions struct {
	// Format is NDJSON, JSON, CSV, Tabular, Parquet or Auto to detect it.
	Format string
	// Now is the ingest time: every event's _sysTime, and the _time of
	// events without one. Zero means the clock.
	Now time.Time
}

// Load decodes data into a dataset called name, replacing any dataset of
// that name: dropping the same file twice must not double its events. The
// dataset is left untouched when the text cannot be parsed at all.
func (s *Session) Load(name string, data []byte, o LoadOptions) (LoadResult, error) {
	if err := db.ValidateName(name); err != nil {
		return LoadResult{}, err
	}
	format := o.Format
	if format == Auto {
		format = Detect(data)
	}
	if o.Now.IsZero() {
		o.Now = s.now()
	}
	now := o.Now.UnixNano()
	res := LoadResult{Dataset: name, Format: format, Failures: []db.Failure{}}
	var rows *db.Rows
	switch format {
	case Tabular:
		var r db.IngestResult
		var err error
		if rows, r, err = db.DecodeTabular(data, now); err != nil {
			return res, err
		}
		res.Ingested = r.Ingested
	case NDJSON, JSON, CSV:
		var r db.IngestResult
		var err error
		rows, r, err = db.Decode(data, db.IngestOptions{Format: ingestFormat(format), Now: now, MaxFailures: maxFailures})
		if err != nil {
			return res, fmt.Errorf("cannot read the %s: %w", format, err)
		}
		res.Ingested, res.Failed = r.Ingested, r.Failed
		if r.Failures != nil {
			res.Failures = r.Failures
		}
	case Parquet:
		return s.loadParquet(name, data, o.Now)
	default:
		return res, fmt.Errorf("unknown format %q: use ndjson, json, csv, tabular or parquet", format)
	}
	return res, s.replace(name, rows)
}

func ingestFormat(f string) db.Format {
	switch f {
	case JSON:
		return db.JSON
	case CSV:
		return db.CSV
	}
	return db.NDJSON
}

// replace swaps the dataset called name for one holding rows.
func (s *Session) replace(name string, rows *db.Rows) error {
	s.forget(name)
	_ = s.db.Delete(name) // absent is fine: this is a first load
	if _, err := s.db.Create(name); err != nil {
		return err
	}
	if _, err := s.db.Append(name, rows); err != nil {
		return err
	}
	// Sealed before Load returns, as a streamed load is: otherwise the
	// idle flush sealed it a moment later, and a query whose answer
	// depends on the order of rows (take N, a float sum) could answer
	// one way before the flush and another after it.
	return s.db.Flush(name)
}

// Detect guesses the format of data from its first bytes: "PAR1" is
// Parquet; otherwise as db.SniffFormat reads a body ('[' or nothing a JSON
// array, '{' NDJSON, anything else CSV), except that '{' is a saved
// tabular result when the whole text is one object with "format":
// "tabular", and a JSON object when it is one object of another kind.
func Detect(data []byte) string {
	if bytes.HasPrefix(data, []byte("PAR1")) {
		return Parquet
	}
	// The server's sniffing decides among the text formats, so a file
	// and the same bytes POSTed to /ingest are read alike; only a lone
	// JSON object is looked at further.
	switch db.SniffFormat(data) {
	case db.CSV:
		return CSV
	case db.JSON:
		return JSON
	}
	t := bytes.TrimLeft(data, " \t\r\n\ufeff")
	// json.Valid stops at the second line of NDJSON, so this scans one
	// event, not the whole file. A lone object (pretty-printed, perhaps,
	// which NDJSON is not) is JSON, or a saved tabular result.
	if !json.Valid(t) {
		return NDJSON
	}
	var probe struct {
		Format string          `json:"format"`
		Tables json.RawMessage `json:"tables"`
	}
	if json.Unmarshal(t, &probe) == nil && strings.EqualFold(probe.Format, "tabular") && len(probe.Tables) > 0 {
		return Tabular
	}
	return JSON
}

// FormatFromFileName maps a file name's extension to a format, Auto when
// the extension says nothing.
func FormatFromFileName(name string) string {
	lower := strings.ToLower(name)
	switch {
	case strings.HasSuffix(lower, ".ndjson"), strings.HasSuffix(lower, ".jsonl"):
		return NDJSON
	case strings.HasSuffix(lower, ".csv"):
		return CSV
	case strings.HasSuffix(lower, ".parquet"):
		return Parquet
	}
	return Auto // .json may be an array, one object or a tabular result
}

// DatasetName turns a file name into a valid dataset name: the base name
// without extension, with characters a dataset name cannot hold replaced
// by '-'.
func DatasetName(file string) string {
	if i := strings.LastIndexAny(file, `/\`); i >= 0 {
		file = file[i+1:]
	}
	if i := strings.IndexByte(file, '.'); i > 0 {
		file = file[:i]
	}
	b := []byte(file)
	for i, c := range b {
		alnum := c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9'
		if !alnum && c != '.' && c != '_' && c != '-' {
			b[i] = '-'
		}
	}
	name := strings.Trim(string(b), "._-")
	if len(name) > 80 {
		name = strings.Trim(name[:80], "._-")
	}
	if name == "" {
		return "dropped"
	}
	return name
}
