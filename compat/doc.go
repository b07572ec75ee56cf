// Package compat drives a real aplite server on a loopback port with the
// official Go client, github.com/axiomhq/axiom-go pinned at v0.37.1, and
// decodes every JSON answer strictly (unknown keys fail), as the client's
// own integration suite does.
//
// It is a module of its own so that the client's dependencies (OpenTelemetry,
// backoff, querystring, ...) stay out of aplite's go.mod. Run it with
//
//	cd compat && go test ./...
package compat
