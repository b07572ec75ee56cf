package fn

import (
	"fmt"
	"strings"
)

// Markdown renders the function reference from the registry: one section
// per family, one row per function with its aliases, argument count and
// description. It is what `aplite functions` prints and what FUNCTIONS.md
// holds, so the published list is always the implemented one.
func Markdown() string {
	var b strings.Builder
	all := All()
	b.WriteString("# Scalar functions\n\n")
	b.WriteString("Generated from the function registry (core/fn); do not edit by hand.\n")
	b.WriteString("Regenerate with `go test ./core/fn -run TestFunctionsDoc -update`.\n\n")
	fmt.Fprintf(&b, "%d functions.\n", len(all))
	family := ""
	for _, f := range all {
		if f.Family != family {
			family = f.Family
			fmt.Fprintf(&b, "\n## %s\n\n", family)
			b.WriteString("| Function | Aliases | Arguments | Description |\n")
			b.WriteString("| --- | --- | --- | --- |\n")
		}
		fmt.Fprintf(&b, "| `%s` | %s | %s | %s |\n", f.Name, aliasList(f.Aliases), Arity(f), mdCell(f.Doc))
	}
	return b.String()
}

// Arity describes a function's argument count: "1", "1–3", "2+".
func Arity(f *Func) string {
	switch {
	case f.MaxArgs < 0:
		return fmt.Sprintf("%d+", f.MinArgs)
	case f.MinArgs == f.MaxArgs:
		return fmt.Sprint(f.MinArgs)
	}
	return fmt.Sprintf("%d–%d", f.MinArgs, f.MaxArgs)
}

func aliasList(as []string) string {
	if len(as) == 0 {
		return ""
	}
	q := make([]string, len(as))
	for i, a := range as {
		q[i] = "`" + a + "`"
	}
	return strings.Join(q, ", ")
}

// mdCell keeps a description inside its table cell.
func mdCell(s string) string {
	return strings.NewReplacer("|", `\|`, "\n", " ").Replace(s)
}
