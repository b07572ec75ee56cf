package server

import (
	"bytes"
	"fmt"
)

// writeMemory adds the memory the column cache and the running queries
// hold to /metrics: with a budget, the two share its query pool, so an
// operator sees the cache shrink as queries take memory.
func (s *Server) writeMemory(b *bytes.Buffer) {
	gauge := func(name, help string, v int64) {
		fmt.Fprintf(b, "# HELP %s %s\n# TYPE %s gauge\n%s %d\n", name, help, name, name, v)
	}
	if s.db != nil {
		if c := s.db.ColumnCache(); c != nil {
			gauge("aplite_column_cache_bytes", "Decoded columns the column cache holds for later queries.", c.Used())
			gauge("aplite_column_cache_limit_bytes", "The most the column cache holds (-column-cache); with a memory budget it holds at most what the running queries leave of the query pool.", c.Limit())
		}
	}
	if g := s.gov; g != nil {
		gauge("aplite_query_memory_pool_bytes", "Memory the running queries and the column cache share under -memory-budget.", g.pool)
		gauge("aplite_query_memory_reserved_bytes", "Memory the running queries and ingest requests have reserved from the pool.", g.inUse())
		gauge("aplite_query_memory_reserved_peak_bytes", "The most the running queries and ingest requests have reserved at once since the server started.", g.peakUse())
	}
}
