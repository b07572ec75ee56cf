package core

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"strings"

	"github.com/aplite/aplite/core/exec"
	"github.com/aplite/aplite/core/ingest"
	"github.com/aplite/aplite/core/plan"
	"github.com/aplite/aplite/core/store"
	"github.com/aplite/aplite/parser"
	"github.com/aplite/aplite/vector"
)

// externalData plans `externaldata (cols) ["url", ...] [with (format=...,
// ignoreFirstRecord=...)]`. Reading URLs from a query is off unless the
// caller supplies Request.ExternalData (the server does when it was
// started with an allow-list); the core never opens a connection itself.
func (p *planner) externalData(s *parser.ExternalDataSource) (*plan.Source, error) {
	if p.req.ExternalData == nil {
		return nil, semErr(s, "externaldata is disabled: start the server with -externaldata-allow URL-PREFIX,... to let queries read those URLs")
	}
	format, skipFirst := "csv", false
	for _, o := range s.Options {
		e, err := p.compilerFor(nil).compile(o.Expr)
		if err != nil || !e.IsConst() {
			return nil, semErr(o, "externaldata option %s must be a constant", o.Name)
		}
		switch strings.ToLower(o.Name) {
		case "format":
			format = strings.ToLower(exec.ValueString(e.ConstValue()))
		case "ignorefirstrecord":
			skipFirst = exec.ValueString(e.ConstValue()) == "true"
		}
	}
	sch := make(exec.Schema, len(s.Cols))
	vecs := make([]*vector.Vector, len(s.Cols))
	for i, c := range s.Cols {
		sch[i] = exec.ColDef{Name: c.Name, Type: c.Type}
		vecs[i] = vector.New(c.Type, 16)
	}
	rows := 0
	for _, url := range s.URLs {
		body, err := p.req.ExternalData(url)
		if err != nil {
			return nil, semErr(s, "externaldata %s: %v", url, err)
		}
		n, err := readExternal(body, format, skipFirst, sch, vecs)
		if err != nil {
			return nil, semErr(s, "externaldata %s: %v", url, err)
		}
		rows += n
	}
	ts := tableSource(sch, vecs, rows)
	return &ts, nil
}

// readExternal appends the records of one document to vecs. CSV and JSON
// are decoded by core/ingest, as an ingest body is (one RFC 4180 reader,
// one JSON scanner); txt and raw are one string a line.
func readExternal(body []byte, format string, skipFirst bool, sch exec.Schema, vecs []*vector.Vector) (int, error) {
	// No field is the event time: a declared _time column is data
	// (ingest stores it as _user__time).
	opts := ingest.Options{TimestampField: "\x00", Now: 1, MaxFailures: 1}
	switch format {
	case "csv", "tsv", "scsv", "psv":
		opts.Format, opts.CSVDeclared = ingest.CSV, true
		opts.CSVDelimiter = map[string]rune{"csv": ',', "tsv": '\t', "scsv": ';', "psv": '|'}[format]
		for _, c := range sch {
			opts.CSVFields = append(opts.CSVFields, c.Name)
		}
	case "json", "multijson":
		opts.Format, opts.MapFields = ingest.JSON, map[string]bool{}
		for _, c := range sch {
			opts.MapFields[c.Name] = true // an object stays one value
		}
	case "txt", "raw":
		return readLines(body, sch, vecs)
	default:
		return 0, fmt.Errorf("unknown format %q (csv, tsv, scsv, psv, json, multijson, txt, raw)", format)
	}
	b := store.NewRowsBuilder()
	res, err := ingest.Decode(body, opts, b)
	if err != nil {
		return 0, err
	}
	if res.Failed > 0 {
		return 0, errors.New(res.Failures[0].Error)
	}
	rows := b.Finish(0)
	first := 0
	if skipFirst && format != "json" && format != "multijson" {
		first = 1
	}
	cols := declaredColumns(rows, sch)
	for r := first; r < rows.N; r++ {
		for i, c := range sch {
			var v any
			for _, col := range cols[i] {
				if !col.IsNull(r) {
					v = col.Value(r)
					break
				}
			}
			appendExternal(vecs[i], c.Type, v)
		}
	}
	return max(rows.N-first, 0), nil
}

// declaredColumns lists, for each declared column, the decoded columns
// holding it: one per type its values came in, under its own name or
// the _user_ name ingest gives a reserved one.
func declaredColumns(rows *store.Rows, sch exec.Schema) [][]*vector.Vector {
	cols := make([][]*vector.Vector, len(sch))
	for j, k := range rows.Keys {
		for i, c := range sch {
			if k.Name == c.Name || k.Name == "_user_"+c.Name {
				cols[i] = append(cols[i], rows.Cols[j])
			}
		}
	}
	return cols
}

// appendExternal appends v to a declared column of type t.
func appendExternal(vec *vector.Vector, t vector.Type, v any) {
	if t == vector.Dynamic {
		vec.AppendValue(v)
		return
	}
	vec.AppendValue(exec.ConvertValue(v, t))
}

// readLines reads txt and raw documents: each line is a record of one
// string, the first declared column.
func readLines(body []byte, sch exec.Schema, vecs []*vector.Vector) (int, error) {
	n := 0
	sc := bufio.NewScanner(bytes.NewReader(body))
	sc.Buffer(make([]byte, 64*1024), 16<<20)
	for sc.Scan() {
		for i, c := range sch {
			var v any
			if i == 0 {
				v = sc.Text()
			}
			appendExternal(vecs[i], c.Type, v)
		}
		n++
	}
	return n, sc.Err()
}
