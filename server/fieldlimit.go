package server

import "strings"

// fieldLimit is the most distinct fields the dataset stored as name may
// hold: its org's license maxFields (0, no cap, for an org without one).
// db enforces it on every ingest path, OTLP included.
func (s *Server) fieldLimit(stored string) int {
	org := s.storageOrg
	if rest, ok := strings.CutPrefix(stored, orgStoragePrefix); ok {
		org, _, _ = strings.Cut(rest, ".") // org ids hold no '.'
	}
	lic := s.license(org)
	if lic == nil {
		return 0
	}
	return int(min(lic.MaxFields, 1<<31))
}
