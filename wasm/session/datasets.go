package session

import (
	"slices"
	"strings"
	"time"

	"github.com/aplite/aplite/db"
)

// Dataset describes a loaded dataset for the console's sidebar, in the
// spirit of GET /v1/datasets/{id}/info.
type Dataset struct {
	Name string `json:"name"`
	// NumEvents is 0 for a file read in place (InPlace): it is not
	// counted unless a query counts it.
	NumEvents int64 `json:"numEvents"`
	// InPlace marks a file queried where it is (OpenFile), of Bytes bytes;
	// its Fields are those seen so far.
	InPlace bool    `json:"inPlace,omitempty"`
	Bytes   int64   `json:"bytes,omitempty"`
	MinTime string  `json:"minTime,omitempty"`
	MaxTime string  `json:"maxTime,omitempty"`
	Fields  []Field `json:"fields"`
}

// Field is one field of a dataset as GET /v2/datasets/{id}/fields lists
// it: a field stored with several types gets a composite type such as
// "float|integer", so the console shows both APIs the same way.
type Field struct {
	Name string `json:"name"`
	Type string `json:"type"`
}

// Datasets lists the loaded datasets by name.
func (s *Session) Datasets() []Dataset {
	list := s.db.Datasets()
	out := make([]Dataset, 0, len(list))
	for _, info := range list {
		// A Parquet dataset lists the fields it has not loaded yet too:
		// they load when a query names them.
		fs, whole := s.parquetFields(info.Name)
		info.Fields = slices.Concat(info.Fields, fs)
		if whole != nil { // a take loaded the first row groups alone
			info.NumEvents, info.MinTime, info.MaxTime = whole.NumEvents, whole.MinTime, whole.MaxTime
		}
		out = append(out, describe(info))
	}
	s.mu.Lock()
	files := make([]*placeFile, 0, len(s.files))
	for _, f := range s.files {
		files = append(files, f)
	}
	s.mu.Unlock()
	for _, f := range files {
		out = append(out, Dataset{Name: f.name, InPlace: true, Bytes: f.size, Fields: fields(f.keys())})
	}
	slices.SortFunc(out, func(a, b Dataset) int { return strings.Compare(a.Name, b.Name) })
	return out
}

func describe(in db.Info) Dataset {
	d := Dataset{Name: in.Name, NumEvents: in.NumEvents, Fields: fields(in.Fields)}
	if in.NumEvents > 0 {
		d.MinTime = time.Unix(0, in.MinTime).UTC().Format(time.RFC3339Nano)
		d.MaxTime = time.Unix(0, in.MaxTime).UTC().Format(time.RFC3339Nano)
	}
	return d
}

// fields merges the stored columns into one entry per field name, sorted
// by name, as the server's fields route does (db.Fields).
func fields(keys []db.ColKey) []Field {
	// Every event has _time and _sysTime, whether or not the parts list
	// them among their columns yet (buffered batches do not).
	keys = append([]db.ColKey{{Name: "_time", Type: db.DateTime}, {Name: "_sysTime", Type: db.DateTime}}, keys...)
	merged := db.Fields(keys)
	out := make([]Field, len(merged))
	for i, f := range merged {
		out[i] = Field{Name: f.Name, Type: f.Type}
	}
	return out
}
