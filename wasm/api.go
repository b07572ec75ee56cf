//go:build js && wasm

package main

import (
	"context"
	"errors"
	"fmt"
	json "github.com/segmentio/encoding/json"
	"syscall/js"
	"time"

	"github.com/aplite/aplite/db"
	"github.com/aplite/aplite/wasm/session"
)

// api binds a session to JavaScript.
type api struct {
	s       *session.Session
	loaders map[int]loader
	nextID  int
	async   async
}

// loader is a streamed load in progress: a *session.Loader (NDJSON,
// CSV) or a *session.ParquetLoader.
type loader interface {
	End() (session.LoadResult, error)
}

func newAPI() *api {
	return &api{s: session.New(), loaders: map[int]loader{}, async: async{cancels: map[string]context.CancelFunc{}}}
}

type jsFunc = func(this js.Value, args []js.Value) any

// funcs are the members of the global aplite object.
func (a *api) funcs() map[string]jsFunc {
	return map[string]jsFunc{
		"load":     guard(a.load),
		"loadFile": guard(a.loadFile),
		"query":    guard(a.query),
		"datasets": guard(a.datasets),
		"drop":     guard(a.drop),
		// Streamed loads: beginLoad(fileName) -> {id, format},
		// loadChunk(id, bytes) -> totals so far, endLoad(id) -> totals.
		"beginLoad": guard(a.beginLoad),
		"loadChunk": guard(a.loadChunk),
		"endLoad":   guard(a.endLoad),
		// Parquet, read by byte ranges: beginParquet(fileName, size,
		// footerBytes, fields?) -> {id, format, dataset, rowGroups:
		// [{ranges: [[off, end]...], rows}]}, loadRowGroup(id, i,
		// [bytes...]) -> totals so far, then endLoad(id);
		// parquetNeeds(apl) -> the datasets to load again first.
		"beginParquet": guard(a.beginParquet),
		"loadRowGroup": guard(a.loadRowGroup),
		"parquetNeeds": guard(a.parquetNeeds),
		"functions":    guard(a.functions),
		// Editing aids: syntax(apl) -> [{message, line, col}] (empty when
		// it parses); filterAt(apl) -> {at}, the UTF-16 offset where a
		// `| where` stage filtering the source goes.
		"syntax":   guard(a.syntax),
		"filterAt": guard(a.filterAt),
	}
}

// guard turns a Go function into a JS one that always answers a JSON
// string: the value, or {"error": {...}}. A panic becomes an error answer
// instead of ending the Go program, which would break every later call.
func guard(f func(args []js.Value) (any, error)) jsFunc {
	return func(_ js.Value, args []js.Value) (out any) {
		defer func() {
			if p := recover(); p != nil {
				out = encode(nil, fmt.Errorf("internal error: %v", p))
			}
		}()
		v, err := f(args)
		return encode(v, err)
	}
}

// encode renders an answer: the value, or {"error": session.Error}.
// segmentio/encoding marshals a 50k-row result twice as fast as
// encoding/json under WASM (README, "Why ingest decodes JSON itself").
func encode(v any, err error) string {
	if err != nil {
		v = map[string]session.Error{"error": session.ErrorOf(err)}
	}
	b, mErr := json.Marshal(v)
	if mErr != nil {
		b, _ = json.Marshal(map[string]session.Error{"error": {Message: "cannot encode the answer: " + mErr.Error()}})
	}
	return string(b)
}

// load(name, text, format | {format, now}): format is "ndjson", "json",
// "csv", "tabular" or "" to detect it; now (RFC 3339) fixes the ingest
// time. text is a string or a Uint8Array.
func (a *api) load(args []js.Value) (any, error) {
	if len(args) < 2 {
		return nil, errors.New("load(name, text, format?) needs a name and the text")
	}
	var o session.LoadOptions
	if len(args) > 2 {
		switch opt := args[2]; opt.Type() {
		case js.TypeString:
			o.Format = opt.String()
		case js.TypeObject:
			if f := opt.Get("format"); f.Type() == js.TypeString {
				o.Format = f.String()
			}
			var err error
			if o.Now, err = timeOption(opt, "now"); err != nil {
				return nil, err
			}
		}
	}
	return a.s.Load(args[0].String(), bytesArg(args[1]), o)
}

// loadFile(fileName, text): the dataset is named after the file and the
// format taken from its extension or detected.
func (a *api) loadFile(args []js.Value) (any, error) {
	if len(args) < 2 {
		return nil, errors.New("loadFile(fileName, text) needs a file name and the text")
	}
	file := args[0].String()
	o := session.LoadOptions{Format: session.FormatFromFileName(file)}
	return a.s.Load(session.DatasetName(file), bytesArg(args[1]), o)
}

// query(apl, {start, end, now, prefix}): times are RFC 3339 strings;
// absent or empty ones leave the range open (now defaults to the clock).
// prefix (bytes) reads files opened in place only that far: a partial
// answer (session.QueryOptions.Prefix).
func (a *api) query(args []js.Value) (any, error) {
	if len(args) > 0 && args[0].Type() == js.TypeString && a.s.ReadsInPlace(args[0].String()) {
		// Its reads wait on promises, which a call holding the event loop
		// would wait on forever.
		return nil, errors.New("this query reads a file opened in place: run it with queryAsync")
	}
	return a.queryWith(context.Background(), args)
}

func (a *api) queryWith(ctx context.Context, args []js.Value) (any, error) {
	if len(args) < 1 || args[0].Type() != js.TypeString {
		return nil, errors.New("query(apl, options?) needs the APL text")
	}
	var o session.QueryOptions
	if len(args) > 1 && args[1].Type() == js.TypeObject {
		var err error
		for _, f := range []struct {
			key string
			dst *time.Time
		}{{"start", &o.Start}, {"end", &o.End}, {"now", &o.Now}} {
			if *f.dst, err = timeOption(args[1], f.key); err != nil {
				return nil, err
			}
		}
		if p := args[1].Get("prefix"); p.Type() == js.TypeNumber {
			o.Prefix = int64(p.Float())
		}
	}
	return a.s.Query(ctx, args[0].String(), o)
}

func (a *api) datasets([]js.Value) (any, error) { return a.s.Datasets(), nil }

func (a *api) drop(args []js.Value) (any, error) {
	if len(args) < 1 {
		return nil, errors.New("drop(name) needs a dataset name")
	}
	return struct{}{}, a.s.Drop(args[0].String())
}

// timeOption reads an optional RFC 3339 member of an options object.
func timeOption(o js.Value, key string) (time.Time, error) {
	v := o.Get(key)
	if v.Type() != js.TypeString || v.String() == "" {
		return time.Time{}, nil
	}
	t, err := time.Parse(time.RFC3339Nano, v.String())
	if err != nil {
		return time.Time{}, fmt.Errorf("%s: %q is not an RFC 3339 time", key, v.String())
	}
	return t, nil
}

// bytesArg copies a Uint8Array straight into Go memory; anything else is
// read as a string.
func bytesArg(v js.Value) []byte {
	if v.InstanceOf(js.Global().Get("Uint8Array")) {
		b := make([]byte, v.Get("length").Int())
		js.CopyBytesToGo(b, v)
		return b
	}
	return []byte(v.String())
}

// beginLoad(fileName): a streamed load of an NDJSON or CSV file into the
// dataset named after it.
func (a *api) beginLoad(args []js.Value) (any, error) {
	if len(args) < 1 {
		return nil, errors.New("beginLoad(fileName) needs a file name")
	}
	file := args[0].String()
	format := session.FormatFromFileName(file)
	if format == session.Auto {
		format = session.NDJSON
	}
	l, err := a.s.BeginLoad(session.DatasetName(file), format, time.Time{})
	if err != nil {
		return nil, err
	}
	id := a.add(l)
	return map[string]any{"id": id, "format": format, "dataset": session.DatasetName(file)}, nil
}

func (a *api) add(l loader) int {
	a.nextID++
	a.loaders[a.nextID] = l
	return a.nextID
}

// beginParquet(fileName, size, footer, fields?, rows?): a Parquet file
// read a row group at a time into the dataset named after it; footer is
// the file's last bytes, at least its footer and 8-byte trailer. fields
// (an array) reads only those columns and _time; without it, every
// column. rows (a need's rows) lists only the first row groups holding
// that many rows, every column.
func (a *api) beginParquet(args []js.Value) (any, error) {
	if len(args) < 3 {
		return nil, errors.New("beginParquet(fileName, size, footer) needs the file name, its size and its last bytes")
	}
	name := session.DatasetName(args[0].String())
	var fields []string // nil: every column
	if len(args) > 3 && args[3].InstanceOf(js.Global().Get("Array")) {
		fields = make([]string, args[3].Length())
		for i := range fields {
			fields[i] = args[3].Index(i).String()
		}
	}
	var l *session.ParquetLoader
	var err error
	if len(args) > 4 && args[4].Type() == js.TypeNumber && args[4].Float() > 0 {
		l, err = a.s.BeginParquetFirst(name, int64(args[1].Float()), bytesArg(args[2]), int64(args[4].Float()), time.Time{})
	} else {
		l, err = a.s.BeginParquet(name, int64(args[1].Float()), bytesArg(args[2]), fields, time.Time{})
	}
	if err != nil {
		return nil, err
	}
	id := a.add(l)
	return map[string]any{"id": id, "format": session.Parquet, "dataset": name, "rowGroups": l.RowGroups()}, nil
}

func (a *api) loadRowGroup(args []js.Value) (any, error) {
	l, _, err := a.loader(args)
	if err != nil || len(args) < 3 {
		return nil, errors.Join(err, errors.New("loadRowGroup(id, index, bytes)"))
	}
	pl, ok := l.(*session.ParquetLoader)
	if !ok {
		return nil, errors.New("loadRowGroup: this load is not of a Parquet file")
	}
	parts := make([][]byte, args[2].Length())
	for i := range parts {
		parts[i] = bytesArg(args[2].Index(i))
	}
	return pl.RowGroupData(args[1].Int(), parts)
}

// parquetNeeds(apl): the Parquet datasets the query names that miss
// columns it may read, [{dataset, fields}] (fields null: every column);
// the worker loads them again with those fields before running it.
func (a *api) parquetNeeds(args []js.Value) (any, error) {
	if len(args) < 1 || args[0].Type() != js.TypeString {
		return nil, errors.New("parquetNeeds(apl) needs the APL text")
	}
	return a.s.ParquetNeeds(args[0].String()), nil
}

func (a *api) loader(args []js.Value) (loader, int, error) {
	if len(args) < 1 {
		return nil, 0, errors.New("needs the id beginLoad returned")
	}
	id := args[0].Int()
	l, ok := a.loaders[id]
	if !ok {
		return nil, 0, fmt.Errorf("no load %d in progress", id)
	}
	return l, id, nil
}

func (a *api) loadChunk(args []js.Value) (any, error) {
	l, _, err := a.loader(args)
	if err != nil || len(args) < 2 {
		return nil, errors.Join(err, errors.New("loadChunk(id, bytes)"))
	}
	sl, ok := l.(*session.Loader)
	if !ok {
		return nil, errors.New("loadChunk: this load is read by row groups: use loadRowGroup")
	}
	return sl.Chunk(bytesArg(args[1]))
}

func (a *api) endLoad(args []js.Value) (any, error) {
	l, id, err := a.loader(args)
	if err != nil {
		return nil, err
	}
	delete(a.loaders, id)
	return l.End()
}

// functions lists the scalar and aggregation functions for completion.
func (a *api) functions([]js.Value) (any, error) { return db.Functions(), nil }

func (a *api) syntax(args []js.Value) (any, error) {
	if len(args) < 1 || args[0].Type() != js.TypeString {
		return nil, errors.New("syntax(apl) needs the APL text")
	}
	errs := session.Syntax(args[0].String())
	if errs == nil {
		errs = []session.Error{}
	}
	return errs, nil
}

func (a *api) filterAt(args []js.Value) (any, error) {
	if len(args) < 1 || args[0].Type() != js.TypeString {
		return nil, errors.New("filterAt(apl) needs the APL text")
	}
	return session.FilterAt(args[0].String())
}
