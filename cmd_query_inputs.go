package main

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/aplite/aplite/db"
	"github.com/aplite/aplite/wasm/session"
)

// queryUsage is `aplite query -h`: what a first-time user needs before
// the flag list.
const queryUsage = `usage: aplite query [flags] [APL]

Runs an APL query locally, without a server, over files (-in) or a stopped
server's data directory (-data). The query is the argument, or standard input
when the argument is absent or "-". Flags may come before or after the query.

examples:
  aplite query -in logs.ndjson "logs | where status >= 500 | take 10"
  aplite query -in web=access.csv.gz "web | summarize count() by method"
  aplite query -in logs.ndjson -format rows "logs | take 3" | jq .
  aplite query -in logs.ndjson -format parquet -o logs.parquet logs
  aplite query -data ./data -start now-1h "['http-logs'] | count"
  echo "print 1 + 1" | aplite query

-in FILE names the dataset after the file (logs.ndjson.gz is logs); -in NAME=FILE
chooses the name. A table printed to a terminal shows its first 100 rows; pipes
and -o get every row. -format json is the API's tabular result object; -format
rows is a JSON array of row objects.

flags:
`

// namedInputs gives every -in value the form NAME=PATH: a bare path (or
// a value that is an existing file although it holds "=") gets the
// console's name for the file, its base name without extensions. The
// name is said on stderr when it is not plainly the file's base name.
// Two files that would get the same name are refused.
func namedInputs(inputs []string) ([]string, error) {
	out := make([]string, 0, len(inputs))
	var names []string
	for _, in := range inputs {
		name, path, ok := strings.Cut(in, "=")
		if _, err := os.Stat(in); err == nil || !ok || strings.ContainsAny(name, `/\`) {
			name, path = session.DatasetName(in), in
			base := filepath.Base(in)
			if plain, _, _ := strings.Cut(base, "."); plain != name {
				fmt.Fprintf(os.Stderr, "aplite query: -in %s is dataset ['%s']\n", in, name)
			}
		}
		if slices.Contains(names, name) {
			return nil, fmt.Errorf("-in %s: dataset %q is already given by another -in; name it: -in OTHER=%s", in, name, path)
		}
		names = append(names, name)
		out = append(out, name+"="+path)
	}
	return out, nil
}

// hideSysTime removes the _sysTime column from a result over files: it
// is when the file was read, which means nothing to its reader (Axiom's
// console hides it too). A query that names it, or ingestion_time(),
// keeps it.
func hideSysTime(res *db.Output, apl string) {
	const sysTime = "_sysTime"
	if strings.Contains(apl, sysTime) || strings.Contains(apl, "ingestion_time") {
		return
	}
	// A copy: the columns may be shared with a cached answer.
	res.Table.Columns = slices.DeleteFunc(slices.Clone(res.Table.Columns), func(c db.OutputColumn) bool { return c.Name == sysTime })
}
