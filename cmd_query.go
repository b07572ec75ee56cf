package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"runtime/pprof"
	"strings"
	"time"

	"github.com/aplite/aplite/db"
)

// multiFlag collects a repeatable flag.
type multiFlag []string

func (m *multiFlag) String() string     { return strings.Join(*m, ",") }
func (m *multiFlag) Set(v string) error { *m = append(*m, v); return nil }

// cmdQuery is `aplite query`: APL over a data directory or files, no server.
func cmdQuery(args []string) int {
	fs := flag.NewFlagSet("query", flag.ContinueOnError)
	data := fs.String("data", "", "query the datasets stored under this directory")
	var inputs multiFlag
	fs.Var(&inputs, "in", "[NAME=]PATH: query a .parquet, .json, .ndjson/.jsonl or .csv file (.gz/.zst too) as dataset NAME, by default the file's base name without extensions (repeatable)")
	start := fs.String("start", "", "start of the time range (RFC 3339, now, now-1h, ...)")
	end := fs.String("end", "", "end of the time range")
	format := fs.String("format", "table", "output format: "+formats+" (json: the API's tabular result object; rows: a JSON array of row objects)")
	out := fs.String("o", "", "write the result to this file instead of standard output")
	timing := fs.Bool("timing", false, "print how long loading, the query and writing the result took on standard error")
	load := fs.Bool("load", false, "load the -in files into memory before querying, instead of reading them in place")
	chunk := fs.Int("chunk-bytes", db.StreamChunk, "bytes of NDJSON each worker decodes at a time when reading -in files in place")
	queryMemory := fs.String("query-memory", "2G", "memory the query may hold in hash tables, sorts and the rows it returns; raise it to export a large file whole (-format parquet -o FILE)")
	cpuProfile := fs.String("cpuprofile", "", "write a CPU profile of the query to this file (for go tool pprof)")
	var mapFields, types multiFlag
	fs.Var(&mapFields, "map-field", "NAME=FIELD: keep FIELD's objects in the -in dataset NAME as one dynamic value, like a server map field (repeatable)")
	fs.Var(&types, "type", "NAME=FIELD:TYPE: store FIELD of the -in dataset NAME as TYPE, e.g. traces=duration:timespan (repeatable)")
	fs.Usage = func() {
		fmt.Fprint(fs.Output(), queryUsage)
		fs.PrintDefaults()
	}
	// Flags may come before or after the query text.
	positional, code, ok := parseInterleaved(fs, args)
	if !ok {
		return code
	}
	apl, err := queryText(positional)
	if err != nil {
		fmt.Fprintln(os.Stderr, "aplite query:", err)
		return 2
	}
	if inputs, err = namedInputs(inputs); err != nil {
		fmt.Fprintln(os.Stderr, "aplite query:", err)
		return 2
	}
	now := time.Now().UTC()
	req := &db.Request{APL: apl, Now: now, DefaultLimit: -1}
	if req.MemoryBudget, err = parseSize(*queryMemory); err != nil {
		fmt.Fprintln(os.Stderr, "aplite query: -query-memory:", err)
		return 2
	}
	if req.Start, err = parseWhen(*start, now); err != nil {
		fmt.Fprintln(os.Stderr, "aplite query: -start:", err)
		return 2
	}
	if req.End, err = parseWhen(*end, now); err != nil {
		fmt.Fprintln(os.Stderr, "aplite query: -end:", err)
		return 2
	}
	decls, err := parseFieldDecls(mapFields, types, inputs)
	if err != nil {
		fmt.Fprintln(os.Stderr, "aplite query:", err)
		return 2
	}
	if *cpuProfile != "" {
		stop, err := startCPUProfile(*cpuProfile)
		if err != nil {
			fmt.Fprintln(os.Stderr, "aplite query: -cpuprofile:", err)
			return 2
		}
		defer stop()
	}
	began := time.Now()
	if name, path := exportable(apl, inputs); name != "" && *format == "parquet" && *out != "" && *data == "" && !*load {
		if err := exportParquet(name, path, decls[name], *chunk, req, *out); err != nil {
			fmt.Fprintln(os.Stderr, "aplite query:", err)
			return 1
		}
		if *timing {
			fmt.Fprintf(os.Stderr, "timing: exported chunk by chunk in %s\n", time.Since(began).Round(time.Microsecond))
		}
		return 0
	}
	res, loaded, err := runQuery(*data, inputs, decls, *load, *chunk, req)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	queried := time.Now()
	if *data == "" && len(inputs) > 0 {
		hideSysTime(res, apl)
	}
	if err := writeOutput(*out, *format, res); err != nil {
		fmt.Fprintln(os.Stderr, "aplite query:", err)
		return 1
	}
	if *timing {
		fmt.Fprintf(os.Stderr, "timing: load %s, query %s (%d rows examined, %d of %d chunks read), output %s, total %s\n",
			loaded.Sub(began).Round(time.Microsecond), queried.Sub(loaded).Round(time.Microsecond), res.RowsExamined(),
			res.Stats.BlocksMatched, res.Stats.BlocksExamined,
			time.Since(queried).Round(time.Microsecond), time.Since(began).Round(time.Microsecond))
	}
	return 0
}

// runQuery answers req over the data directory or the -in files, and
// returns when loading ended (files read in place load nothing). A query
// that names its fields reads the files in place (cmd_query_stream.go)
// unless load is set or the streams cannot plan it.
func runQuery(dir string, inputs []string, decls map[string]*fieldDecl, load bool, chunk int, req *db.Request) (*db.Output, time.Time, error) {
	keep := queryFields(req.APL)
	if dir == "" && !load {
		progress := newScanProgress(inputPaths(inputs))
		streams, rest, report, err := fileStreams(inputs, decls, keep, chunk, progress)
		if err != nil {
			return nil, time.Now(), fmt.Errorf("aplite query: %w", err)
		}
		if len(streams) > 0 {
			progress.start()
			res, loaded, err := queryStreams(streams, rest, decls, keep, req)
			progress.done()
			if err == nil {
				report()
				return res, loaded, nil
			}
			if !streamFallback(err) {
				return nil, loaded, err
			}
		}
	}
	d, err := openQueryData(dir, inputs, decls, keep, req)
	loaded := time.Now()
	if err != nil {
		return nil, loaded, fmt.Errorf("aplite query: %w", err)
	}
	defer d.Close()
	res, err := d.Query(context.Background(), req)
	return res, loaded, err
}

// inputPaths are the paths of -in NAME=PATH arguments.
func inputPaths(inputs []string) []string {
	var out []string
	for _, in := range inputs {
		if _, path, ok := strings.Cut(in, "="); ok {
			out = append(out, path)
		}
	}
	return out
}

// queryStreams answers req over the streams and the rest of the inputs,
// loaded.
func queryStreams(streams map[string]db.TableStream, rest []string, decls map[string]*fieldDecl, keep func(string) bool, req *db.Request) (*db.Output, time.Time, error) {
	d, err := openQueryData("", rest, decls, keep, req)
	loaded := time.Now()
	if err != nil {
		return nil, loaded, fmt.Errorf("aplite query: %w", err)
	}
	defer d.Close()
	req.Streams = streams
	defer func() { req.Streams = nil }()
	res, err := d.Query(context.Background(), req)
	return res, loaded, err
}

// queryText takes the query from the argument, or standard input when it
// is absent or "-".
func queryText(args []string) (string, error) {
	if len(args) > 1 {
		return "", errors.New("give the query as one argument (quote it)")
	}
	if len(args) == 1 && args[0] != "-" {
		return args[0], nil
	}
	b, err := io.ReadAll(os.Stdin)
	return string(b), err
}

// parseWhen parses RFC 3339 or now[-N(s|m|h|d|w)]; "" means unbounded.
func parseWhen(s string, now time.Time) (time.Time, error) {
	if s == "" {
		return time.Time{}, nil
	}
	if strings.HasPrefix(s, "now") {
		rest := s[3:]
		if rest == "" {
			return now, nil
		}
		sign := rest[0]
		if sign != '-' && sign != '+' || len(rest) < 3 {
			return time.Time{}, fmt.Errorf("bad relative time %q", s)
		}
		unit := rest[len(rest)-1]
		var n int
		if _, err := fmt.Sscanf(rest[1:len(rest)-1], "%d", &n); err != nil {
			return time.Time{}, fmt.Errorf("bad relative time %q", s)
		}
		mult := map[byte]time.Duration{'s': time.Second, 'm': time.Minute, 'h': time.Hour, 'd': 24 * time.Hour, 'w': 7 * 24 * time.Hour}[unit]
		if mult == 0 {
			return time.Time{}, fmt.Errorf("bad unit in %q (use s, m, h, d or w)", s)
		}
		d := time.Duration(n) * mult
		if sign == '-' {
			d = -d
		}
		return now.Add(d), nil
	}
	return time.Parse(time.RFC3339Nano, s)
}

// openQueryData opens the data directory, or an in-memory store holding
// the -in files (only the fields keep accepts; nil keeps all) with their
// declared map fields and types.
// A query that takes N rows of its only file stops reading it once it has
// them (takeEnough).
func openQueryData(dir string, inputs []string, decls map[string]*fieldDecl, keep func(string) bool, req *db.Request) (*db.DB, error) {
	if dir != "" && len(inputs) > 0 {
		return nil, errors.New("use either -data or -in, not both")
	}
	if dir != "" {
		return db.Open(dir, db.Options{})
	}
	d := db.OpenMemory(db.Options{Store: db.StoreOptions{NoSync: true}})
	for _, in := range inputs {
		name, path, ok := strings.Cut(in, "=")
		if !ok || name == "" || path == "" {
			d.Close()
			return nil, fmt.Errorf("-in %q: want NAME=PATH", in)
		}
		var enough func() bool
		if len(inputs) == 1 {
			enough = takeEnough(req.APL, name, d, *req)
		}
		if err := loadStream(d, name, path, decls[name], keep, enough, req.Start, req.End, newLoadProgress()); err != nil {
			d.Close()
			return nil, fmt.Errorf("-in %s: %w", in, err)
		}
	}
	return d, nil
}

// startCPUProfile profiles the process into path until stop is called.
func startCPUProfile(path string) (stop func(), err error) {
	f, err := os.Create(path)
	if err != nil {
		return nil, err
	}
	if err := pprof.StartCPUProfile(f); err != nil {
		f.Close()
		return nil, err
	}
	return func() { pprof.StopCPUProfile(); f.Close() }, nil
}

// parseInterleaved parses fs's flags wherever they stand among the
// positional arguments (flags may come before or after a query or a
// file name) and returns the positional ones. When it returns !ok the
// command exits with code: 0 after -h, 2 after a bad flag (fs has said
// why).
func parseInterleaved(fs *flag.FlagSet, args []string) (positional []string, code int, ok bool) {
	for {
		if err := fs.Parse(args); err != nil {
			if err == flag.ErrHelp {
				return nil, 0, false
			}
			return nil, 2, false
		}
		if fs.NArg() == 0 {
			return positional, 0, true
		}
		positional = append(positional, fs.Arg(0))
		args = fs.Args()[1:]
	}
}
