package plan

import (
	"github.com/aplite/aplite/vector"
)

// StageKind names a stage node's kind (FORMAT.md, "Stages").
type StageKind string

// The stage kinds of version 1.
const (
	SWhere     StageKind = "where"
	SExtend    StageKind = "extend"
	SProject   StageKind = "project"
	SPick      StageKind = "pick"
	SSummarize StageKind = "summarize"
	SCount     StageKind = "count"
	STake      StageKind = "take"
	STop       StageKind = "top"
	SSort      StageKind = "sort"
	SDistinct  StageKind = "distinct"
	SParse     StageKind = "parse"
	SMvExpand  StageKind = "mv-expand"
	SGetSchema StageKind = "getschema"
	SSample    StageKind = "sample"
	SUnion     StageKind = "union"
	SJoin      StageKind = "join"
	SNulls     StageKind = "nulls"
	SSeries    StageKind = "make-series"
	SRedact    StageKind = "redact"
	SParseKv   StageKind = "parse-kv"
)

var stageKinds = map[StageKind]bool{SWhere: true, SExtend: true, SProject: true, SPick: true, SSummarize: true,
	SCount: true, STake: true, STop: true, SSort: true, SDistinct: true, SParse: true,
	SMvExpand: true, SGetSchema: true, SSample: true, SUnion: true,
	SJoin: true, SNulls: true, SSeries: true, SRedact: true, SParseKv: true}

// Blocking reports whether a stage of kind k needs all of its input.
func (k StageKind) Blocking() bool {
	switch k {
	case SSummarize, SCount, STake, STop, SSort, SDistinct, SGetSchema, SUnion, SSeries:
		return true
	}
	return false
}

// SameSchema reports whether a stage of kind k outputs its input's
// schema, which its node then leaves out.
func (k StageKind) SameSchema() bool {
	switch k {
	case SWhere, STake, STop, SSort, SSample, SNulls, SRedact:
		return true
	}
	return false
}

// Field is one column of a schema.
type Field struct {
	Name string      `json:"name"`
	Type vector.Type `json:"type"`
}

// Stage is one operator node. Which fields are set depends on Kind; the
// rest stay zero and are left out of the encoding.
type Stage struct {
	Kind StageKind `json:"k"`
	// Schema is the output schema; absent for the kinds whose output is
	// their input (SameSchema).
	Schema []Field `json:"schema,omitempty"`
	// Pred is a where's predicate, or the text a parse reads.
	Pred *Expr `json:"pred,omitempty"`
	// Exprs are extend's, project's and distinct's expressions.
	Exprs []*Expr `json:"exprs,omitempty"`
	// Slots are extend's output columns, one per expression.
	Slots []int `json:"slots,omitempty"`
	Valid bool  `json:"valid,omitempty"`
	// Idx are pick's input columns.
	Idx []int `json:"idx,omitempty"`
	// Keys and Aggs are summarize's; TimeKey, BinSize and BinCol its
	// time bin.
	Keys    []*Expr `json:"keys,omitempty"`
	Aggs    []Agg   `json:"aggs,omitempty"`
	TimeKey int     `json:"timeKey,omitempty"`
	BinSize int64   `json:"binSize,omitempty"`
	BinCol  int     `json:"binCol,omitempty"`
	// Parse is a parse's (or parse-where's) matcher; Pred its source text.
	Parse *Parse `json:"parse,omitempty"`
	// Expand is an mv-expand's; Exprs and Slots are its columns.
	Expand *Expand `json:"expand,omitempty"`
	// N is take's and top's row count.
	N int64 `json:"n,omitempty"`
	// Order are top's and sort's keys.
	Order    []SortKey `json:"order,omitempty"`
	SortTake bool      `json:"sortTake,omitempty"`
	// P is a sample's proportion (a real constant), Seed the query's
	// random seed its generators derive from.
	P    *Expr  `json:"p,omitempty"`
	Seed uint64 `json:"seed,omitempty"`
	// Legs are what a union appends to its input; WithSource names the
	// column reporting each row's leg.
	Legs       []Leg  `json:"legs,omitempty"`
	WithSource string `json:"withSource,omitempty"`
	// Join is a join's (or lookup's); its right side is Legs[0].
	Join *Join `json:"join,omitempty"`
	// Series is a make-series's axis and bins; Keys and Aggs are its
	// by-keys and aggregations.
	Series *Series `json:"series,omitempty"`
	// Redact is a redact's; Idx are the columns it rewrites.
	Redact *Redact `json:"redact,omitempty"`
	// Kv is a parse-kv's; Pred is the text it reads.
	Kv *ParseKv `json:"kv,omitempty"`
}

// Redact is what a redact replaces: every match of Regexes, in order,
// by Token (per character when it is one character long), or by the
// match's MD5 digest with Hash; with Groups only the capturing groups.
type Redact struct {
	Regexes []string `json:"regexes"`
	Token   string   `json:"token"`
	Hash    bool     `json:"hash,omitempty"`
	Groups  bool     `json:"groups,omitempty"`
}

// ParseKv is how a parse-kv splits its text and which keys it keeps:
// each key's name, type and output column; the delimiters, quote pairs
// (two characters, opening and closing), escape characters and greedy
// flag, or the regex of two groups; none of them: any character that is
// not a letter or digit separates.
type ParseKv struct {
	Keys    []KvKey  `json:"keys"`
	Pairs   string   `json:"pairs,omitempty"`
	Kv      string   `json:"kv,omitempty"`
	Quotes  []string `json:"quotes,omitempty"`
	Escapes string   `json:"escapes,omitempty"`
	Greedy  bool     `json:"greedy,omitempty"`
	Regex   string   `json:"regex,omitempty"`
}

// KvKey is one key a parse-kv extracts.
type KvKey struct {
	Name string      `json:"name"`
	Type vector.Type `json:"type"`
	Slot int         `json:"slot"`
}

// Series is what a make-series adds to its keys and aggregations: the
// axis, the step and bounds as constants (a long for an axis binned in
// int64: datetime, timespan, long with a long step; a real otherwise;
// From and To absent when not given), and each aggregation's default
// for an empty bin.
type Series struct {
	Axis     *Expr   `json:"axis"`
	Step     *Expr   `json:"step"`
	From     *Expr   `json:"from,omitempty"`
	To       *Expr   `json:"to,omitempty"`
	Defaults []*Expr `json:"defaults"`
}

// Join is what a join stage matches: its kind (a name of FORMAT.md's
// join kinds), the key pairs, Left[i] over the stage's input and
// Right[i] over the right side's output, of one type each, and the
// right columns the output takes, in order.
type Join struct {
	Kind      string  `json:"kind"`
	Left      []*Expr `json:"left"`
	Right     []*Expr `json:"right"`
	RightCols []int   `json:"rightCols"`
}

// Agg is one aggregation of a summarize: a registry name (core/agg),
// its arguments and the names of its result columns.
type Agg struct {
	Name string   `json:"name"`
	Args []*Expr  `json:"args,omitempty"`
	Outs []string `json:"outs"`
	Pos  *Pos     `json:"pos,omitempty"`
}

// Parse is the matcher a parse stage planned from its pattern: the
// regular expression, each capture's group and output column, and the
// scanner of simple patterns, so the runner needs no pattern text.
type Parse struct {
	Regex   string         `json:"regex"`
	Caps    []ParseCapture `json:"caps"`
	Where   bool           `json:"where,omitempty"`
	Relaxed bool           `json:"relaxed,omitempty"`
	Fast    []ParseItem    `json:"fast,omitempty"`
}

// ParseCapture is one capture: its name and type, its group in Regex
// and its output column.
type ParseCapture struct {
	Name  string      `json:"name"`
	Type  vector.Type `json:"type"`
	Group int         `json:"group"`
	Slot  int         `json:"slot"`
}

// ParseItem is one step of the simple-pattern scanner: a constant, a
// `*`, or capture Cap (-1 for the others) of type Type.
type ParseItem struct {
	Const string      `json:"const,omitempty"`
	Star  bool        `json:"star,omitempty"`
	Cap   int         `json:"cap"`
	Type  vector.Type `json:"type,omitempty"`
}

// Expand is what an mv-expand adds to its columns (Stage.Exprs, written
// to Stage.Slots): each column's type and whether `to typeof(T)` casts
// to it, the with_itemindex column (-1: none), the limit of rows per
// input row (0: none), and whether a bag expands to [key, value] arrays.
type Expand struct {
	Types    []vector.Type `json:"types"`
	Cast     []bool        `json:"cast"`
	IdxSlot  int           `json:"idxSlot"`
	Limit    int64         `json:"limit,omitempty"`
	BagArray bool          `json:"bagArray,omitempty"`
}

// SortKey is one ordering key of a top or sort.
type SortKey struct {
	X         *Expr `json:"x"`
	Desc      bool  `json:"desc,omitempty"`
	NullsLast bool  `json:"nullsLast,omitempty"`
}

// exprs lists every expression of the stage.
func (s *Stage) exprs() []*Expr {
	out := append([]*Expr{s.Pred}, s.Exprs...)
	out = append(out, s.Keys...)
	for _, a := range s.Aggs {
		out = append(out, a.Args...)
	}
	for _, k := range s.Order {
		out = append(out, k.X)
	}
	if sr := s.Series; sr != nil {
		out = append(append(out, sr.Axis, sr.Step, sr.From, sr.To), sr.Defaults...)
	}
	if s.Join != nil {
		out = append(append(out, s.Join.Left...), s.Join.Right...)
	}
	return append(out, s.P)
}

// check verifies the stage's kind and expressions.
func (s *Stage) check() error {
	if !stageKinds[s.Kind] {
		return unsupported("stage kind %q", s.Kind)
	}
	for _, e := range s.exprs() {
		if err := e.check(); err != nil {
			return err
		}
	}
	return checkLegs(s.Legs)
}
