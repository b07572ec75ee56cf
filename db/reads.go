package db

import "github.com/aplite/aplite/core/planner/inspect"

// Reads is what a query may read (inspect.Reads), for loaders that keep
// only that.
type Reads = inspect.Reads

// Inspection is a parsed query to ask, before it is run, what it reads,
// whether it takes N rows of a dataset and whether it is a bare dataset
// name (core/planner/inspect).
type Inspection = inspect.Query

// Inspect parses apl for the questions Inspection answers. A query that
// does not parse is an error, which the engine reports in full when the
// query is run.
func Inspect(apl string) (*Inspection, error) { return inspect.Parse(apl) }

// QueryReads tells what apl may read.
func QueryReads(apl string) (Reads, error) {
	q, err := inspect.Parse(apl)
	if err != nil {
		return Reads{}, err
	}
	return q.Reads(), nil
}
