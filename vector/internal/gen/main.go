// Command gen writes vector/kernels.eg.go: the filter, arithmetic and
// comparison kernels, one function per (operator, element type, operand
// shape, dense or selective), from the templates in templates.go. Run it
// with `go generate ./vector`. Generated code is committed so builds never
// need the generator.
package main

import (
	"bytes"
	"fmt"
	"go/format"
	"log"
	"os"
	"text/template"
)

// op is one binary operator: Fmt builds the Go expression of one row from
// the left and right operand expressions.
type op struct {
	Name, Sym, Fmt string
	// ZeroNull: an integer divisor of 0 makes the row null instead of
	// panicking (KQL's 1/0 on longs).
	ZeroNull bool
}

// elem is one element type the kernels are specialised for.
type elem struct {
	Name, Go string
	Arith    []op // operators defined on the type
	// TotalCmp: comparisons between two vectors, or a constant and a
	// vector, order NaN as cmp.Compare does (NaN equals NaN and sorts
	// first); the engine has always compared that way, while a column
	// against a constant uses the IEEE operators.
	TotalCmp bool
}

// shape is how the two operands are laid out: two vectors, a vector and
// a constant, a constant and a vector.
type shape struct {
	Name, L, R, Params string
	Lead               string // the slice whose length is the dense loop's
}

var cmpOps = []op{
	{Name: "Eq", Sym: "==", Fmt: "%s == %s"}, {Name: "Ne", Sym: "!=", Fmt: "%s != %s"},
	{Name: "Lt", Sym: "<", Fmt: "%s < %s"}, {Name: "Le", Sym: "<=", Fmt: "%s <= %s"},
	{Name: "Gt", Sym: ">", Fmt: "%s > %s"}, {Name: "Ge", Sym: ">=", Fmt: "%s >= %s"},
}

var (
	add = op{Name: "Add", Sym: "+", Fmt: "%s + %s"}
	sub = op{Name: "Sub", Sym: "-", Fmt: "%s - %s"}
	mul = op{Name: "Mul", Sym: "*", Fmt: "%s * %s"}
)

var elems = []elem{
	{Name: "Int64", Go: "int64", Arith: []op{add, sub, mul,
		{Name: "Div", Sym: "/", Fmt: "%s / %s", ZeroNull: true},
		{Name: "Mod", Sym: "%", Fmt: "%s %% %s", ZeroNull: true}}},
	{Name: "Float64", Go: "float64", TotalCmp: true, Arith: []op{add, sub, mul,
		{Name: "Div", Sym: "/", Fmt: "%s / %s"},
		{Name: "Mod", Sym: "%", Fmt: "math.Mod(%s, %s)"}}},
	{Name: "String", Go: "string"},
}

var shapes = []shape{
	{Name: "VV", L: "l[i]", R: "r[i]", Params: "l, r []T", Lead: "l"},
	{Name: "VC", L: "l[i]", R: "k", Params: "l []T, k T", Lead: "l"},
	{Name: "CV", L: "k", R: "r[i]", Params: "k T, r []T", Lead: "r"},
}

// row renders one row's expression of o for the operands l and r.
func row(o op, l, r string) string { return fmt.Sprintf(o.Fmt, l, r) }

// cmpRow is row for a comparison, through cmp.Compare when the element
// type orders NaN totally and both operands are not (vector, constant).
func cmpRow(e elem, s shape, o op, l, r string) string {
	if e.TotalCmp && s.Name != "VC" {
		return fmt.Sprintf("cmp.Compare(%s, %s) %s 0", l, r, o.Sym)
	}
	return row(o, l, r)
}

func main() {
	src, err := render()
	if err != nil {
		log.Fatal(err)
	}
	if err := os.WriteFile("kernels.eg.go", src, 0o644); err != nil {
		log.Fatal(err)
	}
}

// render executes the template and formats the result.
func render() ([]byte, error) {
	var buf bytes.Buffer
	funcs := template.FuncMap{"row": row, "cmpRow": cmpRow, "params": params}
	t := template.Must(template.New("k").Funcs(funcs).Parse(tmpl))
	if err := t.Execute(&buf, map[string]any{"Cmp": cmpOps, "Elems": elems, "Shapes": shapes}); err != nil {
		return nil, err
	}
	return format.Source(buf.Bytes())
}

// params renders a shape's parameter list for element type g.
func params(s shape, g string) string {
	return string(bytes.ReplaceAll([]byte(s.Params), []byte("T"), []byte(g)))
}
