package exec

import "github.com/aplite/aplite/vector"

// getSchemaStage is `getschema`: one row per input column.
type getSchemaStage struct{ In Schema }

// Out implements Stage.
func (g *getSchemaStage) Out() Schema {
	return Schema{{Name: "ColumnName", Type: vector.String}, {Name: "ColumnOrdinal", Type: vector.Int}, {Name: "DataType", Type: vector.String}, {Name: "ColumnType", Type: vector.String}}
}

// clrNames are the .NET type names KQL reports in DataType.
var clrNames = map[vector.Type]string{
	vector.Bool: "System.Boolean", vector.Int: "System.Int64", vector.Float: "System.Double",
	vector.String: "System.String", vector.DateTime: "System.DateTime", vector.TimeSpan: "System.TimeSpan",
	vector.Dynamic: "System.Object", vector.Null: "System.Object",
}

// NewSink implements blockStage.
func (g *getSchemaStage) NewSink(*Ctx) (sink, error) { return &countSink{}, nil }

// Finish implements blockStage.
func (g *getSchemaStage) Finish(x *Ctx, _ []sink) (*Batch, error) {
	n := len(g.In)
	name, ord, dt, ct := vector.New(vector.String, n), vector.New(vector.Int, n), vector.New(vector.String, n), vector.New(vector.String, n)
	for i, c := range g.In {
		name.AppendStr(c.Name)
		ord.AppendInt(int64(i))
		dt.AppendStr(clrNames[c.Type])
		ct.AppendStr(c.Type.String())
	}
	return NewBatch([]*vector.Vector{name, ord, dt, ct}, n), nil
}
