package main

import (
	"context"
	"errors"
	"io"
	"os"
	"runtime"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/aplite/aplite/db"
	"github.com/aplite/aplite/db/parquetfile"
)

// Exporting a file whole (issue 16): `aplite query -in logs=F.ndjson
// -format parquet -o F.parquet logs` used to hold every event of the file
// in the query's result before writing the first row, about 2.5 times the
// file in memory: a 10M-event file (6.6 GB) needed 17 GB. A Parquet file
// has one schema, which only the whole file tells, so the export reads
// the file twice, chunk by chunk: once for the fields and their unified
// types, then to run the query over each chunk planned with those types
// and append its rows to the file in the file's order. Memory follows the
// chunk size, as for the other queries read in place.

// exportable returns the -in dataset name when the query is a bare
// table name that is one NDJSON input (plain, gzip or zstd), the case
// the chunked export handles; "" otherwise.
func exportable(apl string, inputs []string) (string, string) {
	if len(inputs) != 1 {
		return "", ""
	}
	name, path, _ := strings.Cut(inputs[0], "=")
	if f, _, err := fileFormat(path); err != nil || f != db.NDJSON {
		return "", ""
	}
	q, err := db.Inspect(apl)
	if err != nil {
		return "", ""
	}
	if table, ok := q.Table(); !ok || table != name {
		return "", ""
	}
	return name, path
}

// exportParquet writes the query's rows (a bare table name, exportable)
// to out as Parquet, chunk by chunk.
func exportParquet(name, path string, decl *fieldDecl, chunk int, req *db.Request, out string) error {
	_, comp, _ := fileFormat(path)
	fs := &fileStream{path: path, format: db.NDJSON, comp: comp, decl: decl, fails: &failures{}, chunk: max(chunk, 1),
		opts: db.IngestOptions{Format: db.NDJSON, Now: time.Now().UnixNano()}}
	if decl != nil {
		fs.opts.MapFields = decl.mapFields
	}
	fields, err := streamFields(fs)
	if err != nil {
		return err
	}
	f, err := os.Create(out)
	if err != nil {
		return err
	}
	d := db.OpenMemory(db.Options{Store: db.StoreOptions{NoSync: true}})
	defer d.Close()
	var w *parquetfile.Writer
	err = eachChunk(fs, func(rows *db.Rows) (*db.Output, error) {
		r := *req
		r.Streams = map[string]db.TableStream{name: &decodedChunk{fields: fields, rows: rows}}
		r.Workers = 1 // the chunks run side by side, and keep their rows in order
		r.DisableCache = true
		return d.Query(context.Background(), &r)
	}, func(res *db.Output) error {
		hideSysTime(res, req.APL) // as the other formats do for a file's rows
		if w == nil {
			names, types := res.Columns()
			if w, err = parquetfile.NewWriter(f, names, types); err != nil {
				return err
			}
		}
		return w.Write(res)
	})
	if err == nil && w == nil { // no chunk: an empty file still gets a schema
		err = writeEmpty(d, name, fields, req, f)
	} else if err == nil {
		err = w.Close()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		os.Remove(out)
		return err
	}
	fs.fails.report(path)
	return nil
}

// writeEmpty writes the answer over no rows.
func writeEmpty(d *db.DB, name string, fields []db.ColKey, req *db.Request, w io.Writer) error {
	r := *req
	r.Streams = map[string]db.TableStream{name: &decodedChunk{fields: fields, rows: &db.Rows{}}}
	res, err := d.Query(context.Background(), &r)
	if err != nil {
		return err
	}
	hideSysTime(res, req.APL)
	return parquetfile.Write(w, res)
}

// streamFields decodes every chunk of fs and returns its fields with the
// types a stored dataset would unify them to.
func streamFields(fs *fileStream) ([]db.ColKey, error) {
	var mu sync.Mutex
	types := map[string]db.Type{}
	err := eachChunk(fs, func(rows *db.Rows) (*db.Output, error) {
		mu.Lock()
		defer mu.Unlock()
		for _, k := range rows.Keys {
			if cur, ok := types[k.Name]; ok {
				types[k.Name] = unifyTypes(cur, k.Type)
			} else {
				types[k.Name] = k.Type
			}
		}
		return nil, nil
	}, nil)
	out := make([]db.ColKey, 0, len(types))
	for n, t := range types {
		out = append(out, db.ColKey{Name: n, Type: t})
	}
	slices.SortFunc(out, func(a, b db.ColKey) int { return strings.Compare(a.Name, b.Name) })
	return out, err
}

// unifyTypes is the type a stored dataset gives a field seen with types a
// and b (core's rule: int and real make real, any other mix dynamic).
func unifyTypes(a, b db.Type) db.Type {
	switch {
	case a == b || b == db.Null:
		return a
	case a == db.Null:
		return b
	case a.IsNumeric() && b.IsNumeric():
		return db.Float
	}
	return db.Dynamic
}

// eachChunk decodes the chunks of fs on every core and runs each through
// run; emit, when set, receives the results in the file's order. At most
// a few chunks are decoded ahead of the one emit waits for.
func eachChunk(fs *fileStream, run func(*db.Rows) (*db.Output, error), emit func(*db.Output) error) error {
	rd, err := fs.Open()
	if err != nil {
		return err
	}
	defer rd.Close()
	type result struct {
		res *db.Output
		err error
	}
	type job struct {
		c    db.Chunk
		done chan result
	}
	workers := runtime.GOMAXPROCS(0)
	jobs, order := make(chan job, workers), make(chan job, workers)
	stop := make(chan struct{})
	var readErr error
	go func() { // cuts the chunks, in order
		defer close(jobs)
		defer close(order)
		for {
			c, err := rd.Next()
			if err != nil {
				if err != io.EOF {
					readErr = err
				}
				return
			}
			j := job{c: c, done: make(chan result, 1)}
			select {
			case order <- j:
			case <-stop:
				return
			}
			jobs <- j
		}
	}()
	var wg sync.WaitGroup
	for range workers {
		wg.Go(func() {
			for j := range jobs {
				rows, err := j.c.Decode()
				var res *db.Output
				if err == nil {
					res, err = run(rows)
				}
				j.done <- result{res, err}
			}
		})
	}
	var first error
	for j := range order {
		r := <-j.done
		if first == nil && r.err == nil && emit != nil {
			r.err = emit(r.res)
		}
		if first == nil && r.err != nil {
			first = r.err
			close(stop)
		}
	}
	wg.Wait()
	return errors.Join(first, readErr)
}

// decodedChunk is one decoded chunk as a stream of its own, declaring
// the whole file's fields so that every chunk's result has the same
// columns and types.
type decodedChunk struct {
	fields []db.ColKey
	rows   *db.Rows
}

func (c *decodedChunk) Fields() []db.ColKey           { return c.fields }
func (c *decodedChunk) Open() (db.ChunkReader, error) { return &onceReader{rows: c.rows}, nil }

// onceReader hands out one decoded chunk.
type onceReader struct {
	rows *db.Rows
}

func (r *onceReader) Next() (db.Chunk, error) {
	if r.rows == nil {
		return nil, io.EOF
	}
	c := rowsChunk{rows: r.rows}
	r.rows = nil
	return c, nil
}

func (r *onceReader) Close() error { return nil }

// rowsChunk is a chunk already decoded.
type rowsChunk struct{ rows *db.Rows }

func (c rowsChunk) Stats() db.Part            { return nil }
func (c rowsChunk) Decode() (*db.Rows, error) { return c.rows, nil }
