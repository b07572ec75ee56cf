// Package cluster holds the end-to-end tests of aplite running as several
// nodes over a real S3-compatible object store (SeaweedFS, built by
// scripts/seaweedfs): one ingest node, query nodes, a reference single
// node, crashes and restarts. It has no code of its own; `make cluster`
// runs it (and `make test` depends on that target).
package cluster
