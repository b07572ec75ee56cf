package main

import (
	"fmt"
	"os"
	"strings"

	"github.com/aplite/aplite/db"
)

// Field declarations for `aplite query -in`. A server dataset has settings
// a file lacks: map fields (server/mapfields.go: objects kept as one
// dynamic value instead of being flattened into dotted fields) and, for
// OTLP traces, typed fields such as a timespan duration. Without them a
// trace query written for the server (['attributes.custom']['http.route'],
// avg(duration)) fails or answers differently over an exported file, so
// the command line can declare both, per dataset, in the -in NAME's terms:
//
//	-map-field NAME=FIELD        FIELD's objects stay one dynamic value
//	-type NAME=FIELD:TYPE        FIELD is stored as TYPE (timespan, long, ...)
//
// NAME=... mirrors -in NAME=PATH; FIELD:TYPE is APL's own column
// declaration (datatable(duration:timespan)).

// fieldDecl is what one dataset declares.
type fieldDecl struct {
	mapFields map[string]bool
	types     map[string]db.Type
	order     []string // typed fields in flag order, for stable output
}

// parseFieldDecls reads the -map-field and -type flags into declarations
// per dataset; every dataset they name must be loaded with -in.
func parseFieldDecls(mapFlags, typeFlags, inputs []string) (map[string]*fieldDecl, error) {
	loaded := map[string]bool{}
	for _, in := range inputs {
		name, _, _ := strings.Cut(in, "=")
		loaded[name] = true
	}
	decls := map[string]*fieldDecl{}
	get := func(flag, arg string) (*fieldDecl, string, error) {
		name, field, ok := strings.Cut(arg, "=")
		if !ok || name == "" || field == "" {
			return nil, "", fmt.Errorf("-%s %q: want NAME=FIELD%s", flag, arg, map[bool]string{true: ":TYPE"}[flag == "type"])
		}
		if !loaded[name] {
			return nil, "", fmt.Errorf("-%s %q: no -in %s=PATH loads dataset %s", flag, arg, name, name)
		}
		if decls[name] == nil {
			decls[name] = &fieldDecl{mapFields: map[string]bool{}, types: map[string]db.Type{}}
		}
		return decls[name], field, nil
	}
	for _, arg := range mapFlags {
		d, field, err := get("map-field", arg)
		if err != nil {
			return nil, err
		}
		d.mapFields[field] = true
	}
	for _, arg := range typeFlags {
		d, spec, err := get("type", arg)
		if err != nil {
			return nil, err
		}
		field, tname, ok := strings.Cut(spec, ":")
		t, known := db.ParseType(strings.TrimSpace(tname))
		if !ok || field == "" || !known || t == db.Null {
			return nil, fmt.Errorf("-type %q: want NAME=FIELD:TYPE with TYPE one of bool, long, real, string, datetime, timespan, dynamic", arg)
		}
		if _, dup := d.types[field]; !dup {
			d.order = append(d.order, field)
		}
		d.types[field] = t
	}
	return decls, nil
}

// declared returns the type -type gives field name, db.Null when
// none does (or when d is nil: no declarations for the dataset).
func (d *fieldDecl) declared(name string) db.Type {
	if d == nil {
		return db.Null
	}
	return d.types[name]
}

// retype stores each typed field of r as one column of its type, reading
// every value as the matching to*() function does (totimespan: numbers
// are nanoseconds, strings "250ms" or "00:00:00.25"). A field that arrived
// with several types (200 and "200") becomes one column. Values that do
// not convert become null; the count is reported on standard error.
func (d *fieldDecl) retype(r *db.Rows, path string) {
	if d == nil {
		return
	}
	for _, field := range d.order {
		t := d.types[field]
		if lost := db.Retype(r, field, t); lost > 0 {
			fmt.Fprintf(os.Stderr, "aplite query: %s: %d value(s) of %s could not be read as %s and are null\n", path, lost, field, t)
		}
	}
}
