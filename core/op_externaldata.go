package core

import (
	"bufio"
	"bytes"
	"encoding/csv"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/aplite/aplite/core/exec"
	"github.com/aplite/aplite/core/plan"
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

// readExternal appends the records of one document to vecs.
func readExternal(body []byte, format string, skipFirst bool, sch exec.Schema, vecs []*vector.Vector) (int, error) {
	add := func(vals []any) {
		for i := range sch {
			var v any
			if i < len(vals) {
				v = vals[i]
			}
			if sch[i].Type == vector.Dynamic {
				vecs[i].AppendValue(v)
			} else {
				vecs[i].AppendValue(exec.ConvertValue(v, sch[i].Type))
			}
		}
	}
	n := 0
	switch format {
	case "csv", "tsv", "scsv", "psv":
		r := csv.NewReader(bytes.NewReader(body))
		r.Comma = map[string]rune{"csv": ',', "tsv": '\t', "scsv": ';', "psv": '|'}[format]
		r.FieldsPerRecord = -1
		for first := true; ; first = false {
			rec, err := r.Read()
			if err != nil {
				if err.Error() == "EOF" {
					return n, nil
				}
				return n, err
			}
			if first && skipFirst {
				continue
			}
			vals := make([]any, len(rec))
			for i, f := range rec {
				vals[i] = f
			}
			add(vals)
			n++
		}
	case "json", "multijson":
		var docs []any
		trimmed := bytes.TrimSpace(body)
		if len(trimmed) > 0 && trimmed[0] == '[' {
			if err := json.Unmarshal(trimmed, &docs); err != nil {
				return 0, err
			}
		} else {
			dec := json.NewDecoder(bytes.NewReader(trimmed))
			for dec.More() {
				var d any
				if err := dec.Decode(&d); err != nil {
					return n, err
				}
				docs = append(docs, d)
			}
		}
		for _, d := range docs {
			obj, _ := vector.JSONNumbers(d).(map[string]any)
			vals := make([]any, len(sch))
			for i, c := range sch {
				vals[i] = obj[c.Name]
			}
			add(vals)
			n++
		}
		return n, nil
	case "txt", "raw":
		sc := bufio.NewScanner(bytes.NewReader(body))
		sc.Buffer(make([]byte, 64*1024), 16<<20)
		for sc.Scan() {
			add([]any{sc.Text()})
			n++
		}
		return n, sc.Err()
	}
	return 0, fmt.Errorf("unknown format %q (csv, tsv, scsv, psv, json, multijson, txt, raw)", format)
}
