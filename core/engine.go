package core

import (
	"context"
	"errors"
)

// Engine answers APL queries over a Catalog. It is safe for concurrent use.
type Engine struct {
	cat Catalog
}

// NewEngine returns an engine reading datasets from cat.
func NewEngine(cat Catalog) *Engine { return &Engine{cat: cat} }

// Result is an evaluated query, renderable in either API format.
type Result struct {
	tab *TabularResult
}

// Query parses, plans and runs req.
func (e *Engine) Query(ctx context.Context, req *Request) (*Result, error) {
	return nil, errors.New("query engine: not built yet")
}

// Tabular renders the result in the tabular format.
func (r *Result) Tabular() *TabularResult { return r.tab }

// Legacy renders the result in the legacy format.
func (r *Result) Legacy() *LegacyResult { return nil }
