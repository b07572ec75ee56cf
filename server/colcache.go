package server

import "github.com/aplite/aplite/db"

// ColumnCache is the engine's decoded-column cache (nil when it keeps
// none), for the serve command's collector target: the cache is the one
// large long-lived part of the heap, and the collector need not grow the
// heap in proportion to it (issue 29).
func (s *Server) ColumnCache() *db.ColumnCache {
	if s.db == nil {
		return nil
	}
	return s.db.ColumnCache()
}
