package db

import (
	"io"

	"github.com/aplite/aplite/core/render"
)

// Tabular renders a query's result as the API's tabular answer.
func Tabular(o *Output) *TabularResult { return render.Tabular(o) }

// Legacy renders a query's result as the API's legacy answer (matches,
// buckets, fieldsMetaMap).
func Legacy(o *Output) *LegacyResult { return render.Legacy(o) }

// ErrUnknownFormat is WriteText's error for a format it does not know.
var ErrUnknownFormat = render.ErrUnknownFormat

// WriteText writes a query's result in a text format: "table" (or ""),
// "json", "rows", "ndjson" or "csv" (render.Write). A table shows at most
// limit rows (0: all) and returns how many it left out.
func WriteText(w io.Writer, format string, o *Output, limit int) (more int, err error) {
	return render.Write(w, format, o, limit)
}
