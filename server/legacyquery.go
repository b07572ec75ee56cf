package server

import (
	"encoding/json"
	"fmt"
	"math"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/aplite/aplite/db"
)

// The legacy structured query (POST /v1/datasets/{id}/query) predates
// APL. It is served by translating the request into APL text and running
// it through the same engine, so both paths share one semantics.

type legacyQuery struct {
	StartTime     string              `json:"startTime"`
	EndTime       string              `json:"endTime"`
	Resolution    string              `json:"resolution"`
	Aggregations  []legacyAggregation `json:"aggregations"`
	GroupBy       []string            `json:"groupBy"`
	Filter        *legacyFilter       `json:"filter"`
	Order         []legacyOrder       `json:"order"`
	Limit         int                 `json:"limit"`
	VirtualFields []legacyVField      `json:"virtualFields"`
	Project       []legacyProjection  `json:"project"`
	Cursor        string              `json:"cursor"`
	IncludeCursor bool                `json:"includeCursor"`
}

type legacyAggregation struct {
	Alias    string `json:"alias"`
	Op       string `json:"op"`
	Field    string `json:"field"`
	Argument any    `json:"argument"`
}

type legacyFilter struct {
	Op            string         `json:"op"`
	Field         string         `json:"field"`
	Value         any            `json:"value"`
	CaseSensitive bool           `json:"caseSensitive"`
	Children      []legacyFilter `json:"children"`
}

type legacyOrder struct {
	Field string `json:"field"`
	Desc  bool   `json:"desc"`
}

type legacyVField struct {
	Alias string `json:"alias"`
	Expr  string `json:"expr"`
}

type legacyProjection struct {
	Field string `json:"field"`
	Alias string `json:"alias"`
}

// legacyQueryResult is the /query response shape (no request echo,
// fieldsMeta instead of fieldsMetaMap).
type legacyQueryResult struct {
	Format     string           `json:"format"`
	Status     db.Status        `json:"status"`
	Matches    []db.LegacyEntry `json:"matches"`
	Buckets    db.LegacyBuckets `json:"buckets"`
	FieldsMeta []db.FieldMeta   `json:"fieldsMeta"`
}

func (s *Server) handleLegacyQuery(c *call) error {
	name := c.param("id")
	if err := c.p.requireDataset(name, capQuery, actRead, "query"); err != nil {
		return err
	}
	if _, err := c.datasets().Info(name); err != nil {
		return notFound("dataset %q not found", name)
	}
	var q legacyQuery
	if err := s.readJSON(c.RequestCtx, &q, false); err != nil {
		return err
	}
	apl, err := q.toAPL(name)
	if err != nil {
		return err
	}
	// A limit of its own is in the APL; without one the default applies
	// and the answer says so when it left events out.
	limit := 0
	if q.Limit > 0 {
		limit = -1
	}
	req, err := s.queryRequest(c, &aplRequest{APL: apl, StartTime: q.StartTime, EndTime: q.EndTime,
		Cursor: q.Cursor, IncludeCursor: q.IncludeCursor, DefaultLimit: limit})
	if err != nil {
		return err
	}
	res, err := s.runQuery(c, req)
	if err != nil {
		return err
	}
	l := db.Legacy(res)
	out := legacyQueryResult{Format: "legacy", Status: l.Status, Matches: l.Matches, Buckets: l.Buckets,
		FieldsMeta: l.FieldsMetaMap[name]}
	if out.Matches == nil {
		out.Matches = []db.LegacyEntry{}
	}
	if out.FieldsMeta == nil {
		out.FieldsMeta = []db.FieldMeta{}
	}
	if out.Buckets.Series == nil {
		out.Buckets.Series = []db.LegacyInterval{}
	}
	if out.Buckets.Totals == nil {
		out.Buckets.Totals = []db.LegacyEntryGroup{}
	}
	return writeJSON(c.RequestCtx, http.StatusOK, out)
}

// ident quotes a field name for APL.
func ident(name string) string {
	return "['" + strings.NewReplacer(`\`, `\\`, `'`, `\'`).Replace(name) + "']"
}

// literal renders a JSON value as an APL literal.
func literal(v any) (string, error) {
	switch x := v.(type) {
	case nil:
		return "dynamic(null)", nil
	case string:
		b, _ := json.Marshal(x)
		return string(b), nil
	case bool:
		return strconv.FormatBool(x), nil
	case float64:
		if x == math.Trunc(x) && math.Abs(x) < 1<<53 {
			return strconv.FormatInt(int64(x), 10), nil
		}
		return strconv.FormatFloat(x, 'g', -1, 64), nil
	case int64:
		return strconv.FormatInt(x, 10), nil
	case int:
		return strconv.Itoa(x), nil
	case json.Number:
		return x.String(), nil
	}
	return "", badRequest("filter value %v has an unsupported type", v)
}

// toAPL translates the structured query into an APL pipeline.
func (q *legacyQuery) toAPL(dataset string) (string, error) {
	var b strings.Builder
	b.WriteString(ident(dataset))
	for _, v := range q.VirtualFields {
		if err := firstErr(required("virtualFields.alias", v.Alias), required("virtualFields.expr", v.Expr)); err != nil {
			return "", err
		}
		fmt.Fprintf(&b, "\n| extend %s = %s", ident(v.Alias), v.Expr)
	}
	if q.Filter != nil && q.Filter.Op != "" {
		w, err := q.Filter.toAPL()
		if err != nil {
			return "", err
		}
		fmt.Fprintf(&b, "\n| where %s", w)
	}
	if len(q.Aggregations) > 0 {
		aggs := make([]string, len(q.Aggregations))
		for i, a := range q.Aggregations {
			s, err := a.toAPL()
			if err != nil {
				return "", err
			}
			aggs[i] = s
		}
		fmt.Fprintf(&b, "\n| summarize %s", strings.Join(aggs, ", "))
		var by []string
		switch r := strings.TrimSpace(q.Resolution); r {
		case "":
		case "auto":
			by = append(by, "bin_auto(_time)")
		default:
			d, err := time.ParseDuration(r)
			if err != nil || d <= 0 {
				return "", badRequest("resolution %q must be a duration or auto", r)
			}
			by = append(by, fmt.Sprintf("bin(_time, %dms)", d.Milliseconds()))
		}
		for _, g := range q.GroupBy {
			by = append(by, ident(g))
		}
		if len(by) > 0 {
			fmt.Fprintf(&b, " by %s", strings.Join(by, ", "))
		}
	} else if len(q.Project) > 0 {
		cols := []string{"_time", "_sysTime"}
		for _, p := range q.Project {
			if p.Alias != "" && p.Alias != p.Field {
				cols = append(cols, ident(p.Alias)+" = "+ident(p.Field))
			} else {
				cols = append(cols, ident(p.Field))
			}
		}
		fmt.Fprintf(&b, "\n| project %s", strings.Join(cols, ", "))
	}
	if len(q.Order) > 0 {
		keys := make([]string, len(q.Order))
		for i, o := range q.Order {
			dir := "asc"
			if o.Desc {
				dir = "desc"
			}
			keys[i] = ident(o.Field) + " " + dir
		}
		fmt.Fprintf(&b, "\n| order by %s", strings.Join(keys, ", "))
	}
	if q.Limit < 0 || q.Limit > 50000 {
		return "", badRequest("limit must be between 0 (the default, 1000) and 50000, got %d", q.Limit)
	}
	if q.Limit > 0 && len(q.Aggregations) == 0 {
		fmt.Fprintf(&b, "\n| limit %d", q.Limit)
	}
	return b.String(), nil
}

// aggFuncs maps legacy aggregation ops onto APL functions.
var aggFuncs = map[string]string{
	"count": "count", "distinct": "dcount", "makeset": "make_set", "makelist": "make_list",
	"sum": "sum", "avg": "avg", "min": "min", "max": "max", "topk": "topk",
	"percentiles": "percentiles", "histogram": "histogram", "stdev": "stdev",
	"variance": "variance", "argmin": "arg_min", "argmax": "arg_max", "rate": "rate",
}

func (a *legacyAggregation) toAPL() (string, error) {
	fn, ok := aggFuncs[a.Op]
	if !ok {
		return "", badRequest("aggregations.op %q is not supported", a.Op)
	}
	var call string
	switch {
	case a.Op == "count":
		call = "count()"
	case a.Field == "" || a.Field == "*":
		return "", badRequest("aggregations.field is required for %s", a.Op)
	case a.Op == "argmin" || a.Op == "argmax":
		call = fmt.Sprintf("%s(%s, *)", fn, ident(a.Field))
	case a.Argument != nil:
		args := []any{a.Argument}
		if list, ok := a.Argument.([]any); ok {
			args = list
		}
		parts := []string{ident(a.Field)}
		for _, x := range args {
			l, err := literal(x)
			if err != nil {
				return "", err
			}
			parts = append(parts, l)
		}
		call = fmt.Sprintf("%s(%s)", fn, strings.Join(parts, ", "))
	default:
		call = fmt.Sprintf("%s(%s)", fn, ident(a.Field))
	}
	if a.Alias != "" {
		return ident(a.Alias) + " = " + call, nil
	}
	return call, nil
}

// toAPL renders one filter node as an APL predicate.
func (f *legacyFilter) toAPL() (string, error) {
	join := func(sep string) (string, error) {
		if len(f.Children) == 0 {
			return "", badRequest("filter op %q needs children", f.Op)
		}
		parts := make([]string, 0, len(f.Children))
		for i := range f.Children {
			if f.Children[i].Op == "" {
				continue
			}
			p, err := f.Children[i].toAPL()
			if err != nil {
				return "", err
			}
			parts = append(parts, "("+p+")")
		}
		if len(parts) == 0 {
			return "true", nil
		}
		return strings.Join(parts, sep), nil
	}
	switch f.Op {
	case "and":
		return join(" and ")
	case "or":
		return join(" or ")
	case "not":
		inner, err := join(" and ")
		if err != nil {
			return "", err
		}
		return "not(" + inner + ")", nil
	}
	if f.Field == "" {
		return "", badRequest("filter.field is required for op %q", f.Op)
	}
	field := ident(f.Field)
	self := ""
	if f.Op == "exists" || f.Op == "not-exists" {
		if f.Op == "exists" {
			self = "isnotnull(" + field + ")"
		} else {
			self = "isnull(" + field + ")"
		}
	} else {
		val, err := literal(f.Value)
		if err != nil {
			return "", err
		}
		_, isStr := f.Value.(string)
		cs := f.CaseSensitive || !isStr
		sfx := ""
		if f.CaseSensitive {
			sfx = "_cs"
		}
		switch f.Op {
		case "==", "eq":
			self = pick(cs, field+" == "+val, field+" =~ "+val)
		case "!=", "ne":
			self = pick(cs, field+" != "+val, field+" !~ "+val)
		case ">", "gt":
			self = field + " > " + val
		case ">=", "gte":
			self = field + " >= " + val
		case "<", "lt":
			self = field + " < " + val
		case "<=", "lte":
			self = field + " <= " + val
		case "starts-with":
			self = field + " startswith" + sfx + " " + val
		case "not-starts-with":
			self = field + " !startswith" + sfx + " " + val
		case "ends-with":
			self = field + " endswith" + sfx + " " + val
		case "not-ends-with":
			self = field + " !endswith" + sfx + " " + val
		case "contains":
			self = field + " contains" + sfx + " " + val
		case "not-contains":
			self = field + " !contains" + sfx + " " + val
		case "regexp":
			self = field + " matches regex " + val
		case "not-regexp":
			self = "not(" + field + " matches regex " + val + ")"
		default:
			return "", badRequest("filter op %q is not supported", f.Op)
		}
	}
	if len(f.Children) > 0 {
		rest, err := (&legacyFilter{Op: "and", Children: f.Children}).toAPL()
		if err != nil {
			return "", err
		}
		return "(" + self + ") and (" + rest + ")", nil
	}
	return self, nil
}

func pick(cond bool, a, b string) string {
	if cond {
		return a
	}
	return b
}
