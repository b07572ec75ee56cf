package fn

import (
	"encoding/csv"
	"encoding/json"
	"net/url"
	"path"
	"strconv"
	"strings"

	"github.com/aplite/aplite/vector"
)

// Parsers from text to dynamic values: JSON, CSV, URLs and paths.

func init() {
	Register(&Func{Name: "parse_json", Family: famString, MinArgs: 1, MaxArgs: 1,
		Result: Sig("parse_json", vector.Dynamic, KAny),
		Eval:   evalParseJSON,
		Doc:    "Parses a JSON string into a dynamic value; a string that is not JSON is returned as a dynamic string."})
	Register(&Func{Name: "parse_csv", Family: famString, MinArgs: 1, MaxArgs: 1,
		Result: Sig("parse_csv", vector.Dynamic, KString),
		Eval: strFunc(vector.Dynamic, func(s string) (any, bool) {
			r := csv.NewReader(strings.NewReader(s))
			r.LazyQuotes, r.TrimLeadingSpace, r.FieldsPerRecord = true, true, -1
			rec, err := r.Read()
			if err != nil {
				return []any{""}, s == ""
			}
			return strArr(rec), true
		}),
		Doc: "Splits one comma-separated record (with CSV quoting) into an array of strings."})
	Register(&Func{Name: "parse_url", Family: famString, MinArgs: 1, MaxArgs: 1,
		Result: Sig("parse_url", vector.Dynamic, KString),
		Eval:   strFunc(vector.Dynamic, parseURL),
		Doc:    "Parses an absolute URL into {scheme, host, port, path, username, password, query, fragment}."})
	Register(&Func{Name: "parse_urlquery", Family: famString, MinArgs: 1, MaxArgs: 1,
		Result: Sig("parse_urlquery", vector.Dynamic, KString),
		Eval: strFunc(vector.Dynamic, func(s string) (any, bool) {
			if k := strings.IndexByte(s, '?'); k >= 0 {
				s = s[k+1:]
			}
			return queryBag(s), true
		}),
		Doc: "Parses a URL query string (with or without '?') into a bag of parameters."})
	Register(&Func{Name: "parse_path", Family: famString, MinArgs: 1, MaxArgs: 1,
		Result: Sig("parse_path", vector.Dynamic, KString),
		Eval:   strFunc(vector.Dynamic, parsePath),
		Doc:    "Splits a path or URL into {scheme, host, port, directory, basename, extension, query}."})
	Register(&Func{Name: "format_url", Family: famString, MinArgs: 1, MaxArgs: 1,
		Result: Sig("format_url", vector.String, KDyn),
		Eval: func(_ *Context, args []*vector.Vector, n Rows) (*vector.Vector, error) {
			return Unary(vector.String, args[0], n, ToDynamic, formatURL), nil
		},
		Doc: "Builds a URL from a bag with scheme, host, port, path, query, fragment, user and password."})
}

func evalParseJSON(_ *Context, args []*vector.Vector, n Rows) (*vector.Vector, error) {
	a := args[0]
	if a.Type != vector.String && a.Type != vector.Dynamic && a.Type != vector.Null {
		return Unary(vector.Dynamic, a, n, ToDynamic, func(x any) (any, bool) { return x, true }), nil
	}
	if a.Type == vector.Dynamic {
		return Unary(vector.Dynamic, a, n, ToDynamic, func(x any) (any, bool) {
			if s, ok := x.(string); ok {
				return ParseJSON(s), true
			}
			return x, true
		}), nil
	}
	return MapStrings(vector.Dynamic, a, n, func(s string) (any, bool) {
		v := ParseJSON(s)
		return v, v != nil
	}), nil
}

// ParseJSON decodes JSON text into a dynamic value: integers become int64,
// other numbers float64. Text that is not one JSON value comes back as the
// string itself; "null" and blank text give nil.
func ParseJSON(s string) any {
	t := strings.TrimSpace(s)
	if s == "" {
		return nil
	}
	if t == "" {
		// Blank text is not JSON: like other non-JSON text it comes back
		// as the string itself (KQL).
		return s
	}
	d := json.NewDecoder(strings.NewReader(t))
	d.UseNumber()
	var v any
	if err := d.Decode(&v); err != nil || d.More() {
		return s
	}
	if _, err := d.Token(); err == nil {
		return s
	}
	return fromJSON(v)
}

func fromJSON(v any) any {
	switch t := v.(type) {
	case json.Number:
		if n, err := strconv.ParseInt(string(t), 10, 64); err == nil {
			return n
		}
		f, _ := strconv.ParseFloat(string(t), 64)
		return f
	case []any:
		for i, e := range t {
			t[i] = fromJSON(e)
		}
	case map[string]any:
		for k, e := range t {
			t[k] = fromJSON(e)
		}
	}
	return v
}

func parseURL(s string) (any, bool) {
	u, err := url.Parse(strings.TrimSpace(s))
	if err != nil || u.Scheme == "" || u.Host == "" {
		return nil, false
	}
	pass, _ := u.User.Password()
	return map[string]any{
		"scheme":   u.Scheme,
		"host":     u.Hostname(),
		"port":     u.Port(),
		"path":     u.Path,
		"username": u.User.Username(),
		"password": pass,
		"query":    queryBag(u.RawQuery),
		"fragment": u.Fragment,
	}, true
}

// queryBag turns a raw query into a bag; a repeated key keeps its last
// value, a key that does not decode is kept raw.
func queryBag(q string) map[string]any {
	out := map[string]any{}
	for _, kv := range strings.Split(q, "&") {
		if kv == "" {
			continue
		}
		k, v, _ := strings.Cut(kv, "=")
		if dk, err := url.QueryUnescape(k); err == nil {
			k = dk
		}
		if dv, err := url.QueryUnescape(v); err == nil {
			v = dv
		}
		out[k] = v
	}
	return out
}

func parsePath(s string) (any, bool) {
	out := map[string]any{"scheme": "", "host": "", "port": "", "query": ""}
	p := s
	if u, err := url.Parse(s); err == nil && u.Scheme != "" && len(u.Scheme) > 1 {
		out["scheme"], out["host"], out["port"] = u.Scheme, u.Hostname(), u.Port()
		p = u.Path
		if u.RawQuery != "" {
			out["query"] = "?" + u.RawQuery
		}
	} else if k := strings.IndexByte(s, '?'); k >= 0 {
		p, out["query"] = s[:k], s[k:]
	}
	sep := "/"
	if !strings.Contains(p, "/") && strings.Contains(p, `\`) {
		sep = `\`
	}
	dir, base := "", p
	if k := strings.LastIndex(p, sep); k >= 0 {
		dir, base = p[:k], p[k+1:]
		if dir == "" {
			dir = sep
		}
	}
	out["directory"], out["basename"] = dir, base
	out["extension"] = strings.TrimPrefix(path.Ext(base), ".")
	return out, true
}

func formatURL(x any) (string, bool) {
	m, ok := x.(map[string]any)
	if !ok {
		return "", false
	}
	get := func(k string) string { s, _ := DynString(m[k]); return s }
	u := url.URL{Scheme: get("scheme"), Host: get("host"), Path: get("path"), Fragment: get("fragment")}
	if u.Host == "" {
		return "", false
	}
	if p := get("port"); p != "" {
		u.Host += ":" + p
	}
	if user := get("user"); user != "" {
		if pw := get("password"); pw != "" {
			u.User = url.UserPassword(user, pw)
		} else {
			u.User = url.User(user)
		}
	}
	switch q := m["query"].(type) {
	case map[string]any:
		vals := url.Values{}
		for k, v := range q {
			s, _ := DynString(v)
			vals.Set(k, s)
		}
		u.RawQuery = vals.Encode()
	case string:
		u.RawQuery = strings.TrimPrefix(q, "?")
	}
	if u.Path != "" && !strings.HasPrefix(u.Path, "/") {
		u.Path = "/" + u.Path
	}
	return u.String(), true
}
