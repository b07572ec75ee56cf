package core

import "github.com/aplite/aplite/vector"

// getSchemaStage is `getschema`: one row per input column.
type getSchemaStage struct{ in schema }

func (g *getSchemaStage) out() schema {
	return schema{{"ColumnName", vector.String}, {"ColumnOrdinal", vector.Int}, {"DataType", vector.String}, {"ColumnType", vector.String}}
}

// clrNames are the .NET type names KQL reports in DataType.
var clrNames = map[vector.Type]string{
	vector.Bool: "System.Boolean", vector.Int: "System.Int64", vector.Float: "System.Double",
	vector.String: "System.String", vector.DateTime: "System.DateTime", vector.TimeSpan: "System.TimeSpan",
	vector.Dynamic: "System.Object", vector.Null: "System.Object",
}

func (g *getSchemaStage) newSink(*execCtx) (sink, error) { return &countSink{}, nil }

func (g *getSchemaStage) finish(x *execCtx, _ []sink) (*batch, error) {
	n := len(g.in)
	name, ord, dt, ct := vector.New(vector.String, n), vector.New(vector.Int, n), vector.New(vector.String, n), vector.New(vector.String, n)
	for i, c := range g.in {
		name.AppendStr(c.Name)
		ord.AppendInt(int64(i))
		dt.AppendStr(clrNames[c.Type])
		ct.AppendStr(c.Type.String())
	}
	return newBatch([]*vector.Vector{name, ord, dt, ct}, n), nil
}
