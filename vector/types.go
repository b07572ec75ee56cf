package vector

import "fmt"

// Type is the APL type of a column or value.
type Type uint8

// The APL types. Int is APL's long (int is an alias, 64-bit in APL);
// DateTime is nanoseconds since the Unix epoch, UTC; TimeSpan is
// nanoseconds. Null is the type of an untyped null (a column that has
// never seen a value).
const (
	Null Type = iota
	Bool
	Int
	Float
	String
	DateTime
	TimeSpan
	Dynamic
)

var typeNames = [...]string{"null", "bool", "long", "real", "string", "datetime", "timespan", "dynamic"}

// apiNames are the names the HTTP API uses in result `fields[].type`.
var apiNames = [...]string{"null", "boolean", "integer", "float", "string", "datetime", "timespan", "dynamic"}

// String returns the APL name of the type (long, real, ...).
func (t Type) String() string {
	if int(t) < len(typeNames) {
		return typeNames[t]
	}
	return fmt.Sprintf("type(%d)", uint8(t))
}

// APIName returns the name the query API reports for the type.
func (t Type) APIName() string {
	if int(t) < len(apiNames) {
		return apiNames[t]
	}
	return "unknown"
}

// IsNumeric reports whether values of t take part in arithmetic as numbers.
func (t Type) IsNumeric() bool { return t == Int || t == Float }

// IsInt64Backed reports whether t is stored in Vector.Ints.
func (t Type) IsInt64Backed() bool { return t == Int || t == DateTime || t == TimeSpan }

// ParseType maps an APL type name (as written in datatable, typeof(...) or
// a cast) to a Type. It accepts the documented aliases.
func ParseType(name string) (Type, bool) {
	switch name {
	case "bool", "boolean":
		return Bool, true
	case "int", "long", "int64", "integer":
		return Int, true
	case "real", "double", "float":
		return Float, true
	case "string":
		return String, true
	case "datetime", "date":
		return DateTime, true
	case "timespan", "time":
		return TimeSpan, true
	case "dynamic":
		return Dynamic, true
	}
	return Null, false
}
