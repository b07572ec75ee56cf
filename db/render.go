package db

import (
	"github.com/aplite/aplite/core/output"
	"github.com/aplite/aplite/core/render"
)

// Tabular renders a query's result as the API's tabular answer.
func Tabular(o *Output) *TabularResult { return render.Tabular(o) }

// Legacy renders a query's result as the API's legacy answer (matches,
// buckets, fieldsMetaMap).
func Legacy(o *Output) *LegacyResult { return render.Legacy(o) }

// CellText is a cell's value as text: a table's cell or a CSV field.
func CellText(v any) string { return output.Text(v) }
