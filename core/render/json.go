package render

import "github.com/aplite/aplite/core/output"

// This file holds the JSON shapes of query results, exactly as the
// official clients decode them (see shared/spec/clients.md §4). Field sets
// are strict: axiom-go's integration tests reject unknown keys.

// TabularResult is the `format=tabular` response body.
type TabularResult struct {
	Format        string                 `json:"format"`
	Status        Status                 `json:"status"`
	Tables        []TabularTable         `json:"tables"`
	DatasetNames  []string               `json:"datasetNames"`
	FieldsMetaMap map[string][]FieldMeta `json:"fieldsMetaMap"`
}

// Status is the query statistics block shared by both formats.
type Status struct {
	ElapsedTime    int64  `json:"elapsedTime"` // µs
	MinCursor      string `json:"minCursor"`
	MaxCursor      string `json:"maxCursor"`
	BlocksExamined int64  `json:"blocksExamined"`
	BlocksCached   int64  `json:"blocksCached"`
	BlocksMatched  int64  `json:"blocksMatched"`
	RowsExamined   int64  `json:"rowsExamined"`
	RowsMatched    int64  `json:"rowsMatched"`
	// PagesDecoded is aplite's own counter, beyond the spec's fields (the
	// clients decode status leniently): the column pages a scan decoded,
	// which tells how much of a paged column a term filter skipped.
	PagesDecoded int64            `json:"pagesDecoded"`
	NumGroups    int64            `json:"numGroups"`
	IsPartial    bool             `json:"isPartial"`
	CacheStatus  int              `json:"cacheStatus"`
	MinBlockTime string           `json:"minBlockTime"`
	MaxBlockTime string           `json:"maxBlockTime"`
	Messages     []output.Message `json:"messages,omitempty"`
}

// TabularTable is one table of a tabular result; Columns is column-major.
type TabularTable struct {
	Name    string         `json:"name"`
	Sources []NameRef      `json:"sources"`
	Fields  []TabularField `json:"fields"`
	Order   []OrderRef     `json:"order"`
	Groups  []NameRef      `json:"groups"`
	Range   *RangeRef      `json:"range,omitempty"`
	Buckets *BucketsRef    `json:"buckets,omitempty"`
	Columns [][]any        `json:"columns"`
}

// NameRef is {"name": ...} as used by sources and groups.
type NameRef struct {
	Name string `json:"name"`
}

// TabularField describes one column.
type TabularField struct {
	Name string   `json:"name"`
	Type string   `json:"type"`
	Agg  *AggInfo `json:"agg,omitempty"`
}

// AggInfo names the aggregation that produced a column.
type AggInfo struct {
	Name   string   `json:"name"`
	Fields []string `json:"fields,omitempty"`
	Args   []any    `json:"args,omitempty"`
}

// OrderRef is one sort key of a result.
type OrderRef struct {
	Field string `json:"field"`
	Desc  bool   `json:"desc"`
}

// RangeRef is the time range a result covers.
type RangeRef struct {
	Field string `json:"field"`
	Start string `json:"start"`
	End   string `json:"end"`
}

// BucketsRef describes the time bucketing of an aggregation.
type BucketsRef struct {
	Field string `json:"field"`
	Size  int64  `json:"size"` // ns
}

// FieldMeta describes a dataset field in fieldsMetaMap.
type FieldMeta struct {
	Name        string `json:"name"`
	Type        string `json:"type"`
	Unit        string `json:"unit"`
	Hidden      bool   `json:"hidden"`
	Description string `json:"description"`
}

// LegacyResult is the `format=legacy` response body.
type LegacyResult struct {
	Format        string                 `json:"format"`
	Request       *LegacyRequest         `json:"request,omitempty"`
	Status        Status                 `json:"status"`
	Matches       []LegacyEntry          `json:"matches"`
	Buckets       LegacyBuckets          `json:"buckets"`
	DatasetNames  []string               `json:"datasetNames"`
	FieldsMetaMap map[string][]FieldMeta `json:"fieldsMetaMap"`
}

// LegacyRequest echoes the query as a legacy structured request.
type LegacyRequest struct {
	StartTime         string          `json:"startTime"`
	EndTime           string          `json:"endTime"`
	Resolution        string          `json:"resolution"`
	Aggregations      []LegacyAggSpec `json:"aggregations"`
	GroupBy           []string        `json:"groupBy"`
	Order             []OrderRef      `json:"order"`
	Limit             int             `json:"limit"`
	VirtualFields     []any           `json:"virtualFields"`
	Project           []any           `json:"project"`
	Cursor            string          `json:"cursor"`
	IncludeCursor     bool            `json:"includeCursor"`
	ContinuationToken string          `json:"continuationToken"`
}

// LegacyAggSpec is one aggregation of a legacy request.
type LegacyAggSpec struct {
	Op    string `json:"op"`
	Field string `json:"field"`
	Alias string `json:"alias"`
}

// LegacyEntry is one matched event.
type LegacyEntry struct {
	Time    string         `json:"_time"`
	SysTime string         `json:"_sysTime"`
	RowID   string         `json:"_rowId"`
	Data    map[string]any `json:"data"`
}

// LegacyBuckets holds aggregation results of the legacy format.
type LegacyBuckets struct {
	Series []LegacyInterval   `json:"series"`
	Totals []LegacyEntryGroup `json:"totals"`
}

// LegacyInterval is one time bucket.
type LegacyInterval struct {
	StartTime string             `json:"startTime"`
	EndTime   string             `json:"endTime"`
	Groups    []LegacyEntryGroup `json:"groups"`
}

// LegacyEntryGroup is one group's aggregation values.
type LegacyEntryGroup struct {
	ID           uint64           `json:"id"`
	Group        map[string]any   `json:"group"`
	Aggregations []LegacyAggValue `json:"aggregations"`
}

// LegacyAggValue is one aggregation's value for a group.
type LegacyAggValue struct {
	Op    string `json:"op"`
	Value any    `json:"value"`
}
