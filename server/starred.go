package server

import (
	"encoding/json"
	"strconv"
	"strings"

	"github.com/aplite/aplite/server/meta"
)

type starredBody struct {
	Kind     string          `json:"kind"`
	Name     string          `json:"name"`
	Who      string          `json:"who"`
	Dataset  string          `json:"dataset"`
	Query    json.RawMessage `json:"query"`
	Metadata map[string]any  `json:"metadata"`
}

// starredQueryText is the part of a starred query's "query" object that
// the server checks; the rest is kept as the client sent it.
type starredQueryText struct {
	APL string `json:"apl"`
}

func (b *starredBody) record(c *call) (*meta.StarredQuery, error) {
	if b.Kind == "" {
		b.Kind = "apl"
	}
	if b.Kind != "apl" {
		return nil, badRequest("kind must be \"apl\"")
	}
	if err := firstErr(required("name", b.Name), maxLen("name", b.Name, 256)); err != nil {
		return nil, err
	}
	if len(b.Query) == 0 || string(b.Query) == "null" {
		return nil, badRequest("query is required")
	}
	var q starredQueryText
	if err := json.Unmarshal(b.Query, &q); err != nil {
		return nil, badRequest("query must be an object: %v", err)
	}
	if err := required("query.apl", q.APL); err != nil {
		return nil, err
	}
	// The dataset it is starred for is checked by the route (its
	// starredQueries capability); the others it names need query rights.
	if err := c.s.checkStoredAPL(c, "query.apl", q.APL, func(ds string) bool { return ds == b.Dataset }); err != nil {
		return nil, err
	}
	if b.Who == "" {
		b.Who = c.p.userID
	}
	if b.Metadata == nil {
		b.Metadata = map[string]any{}
	}
	return &meta.StarredQuery{Kind: b.Kind, Name: b.Name, Who: b.Who, Dataset: b.Dataset,
		Query: b.Query, Metadata: b.Metadata}, nil
}

func starredResource(s *Server) *resource[meta.StarredQuery] {
	read := func(c *call) (*meta.StarredQuery, error) {
		var b starredBody
		if err := c.s.readJSON(c.RequestCtx, &b, false); err != nil {
			return nil, err
		}
		return b.record(c)
	}
	return &resource[meta.StarredQuery]{
		kind: meta.KindStarred,
		what: "starred query",
		allowed: func(c *call, action string, q *meta.StarredQuery) error {
			if q == nil || q.Dataset == "" {
				return nil
			}
			return c.p.requireDataset(q.Dataset, capStarred, action, action+" starred queries of")
		},
		newID:  meta.NewID,
		id:     func(q *meta.StarredQuery) string { return q.ID },
		setID:  func(q *meta.StarredQuery, id string) { q.ID = id },
		create: read,
		update: func(c *call, _ meta.StarredQuery) (*meta.StarredQuery, error) { return read(c) },
		keep:   starredFilter,
	}
}

// starredFilter applies the list parameters: who (all, me or a user id),
// dataset, qs (text searched in name and APL) and limit.
func starredFilter(c *call) (func(*meta.StarredQuery) bool, error) {
	args := c.QueryArgs()
	who := string(args.Peek("who"))
	if who == "me" {
		who = c.p.userID
	}
	ds := string(args.Peek("dataset"))
	qs := strings.ToLower(string(args.Peek("qs")))
	limit := -1
	if l := args.Peek("limit"); len(l) > 0 {
		n, err := strconv.Atoi(string(l))
		if err != nil || n < 0 {
			return nil, badRequest("limit must be a non-negative integer")
		}
		limit = n
	}
	n := 0
	return func(q *meta.StarredQuery) bool {
		if who != "" && who != "all" && q.Who != who {
			return false
		}
		if ds != "" && q.Dataset != ds {
			return false
		}
		if qs != "" && !strings.Contains(strings.ToLower(q.Name), qs) &&
			!strings.Contains(strings.ToLower(string(q.Query)), qs) {
			return false
		}
		if limit >= 0 && n >= limit {
			return false
		}
		n++
		return true
	}, nil
}
