//go:build !js

package db

import (
	"context"

	"github.com/aplite/aplite/core/store"
)

// Problem is one damaged block or torn WAL tail Check or Repair found.
type Problem = store.Problem

// CheckProgress hears of every file Check reads: i of n files.
type CheckProgress = store.CheckProgress

// Check verifies every checksum under a stopped data directory and changes
// nothing.
func Check(dir string, progress CheckProgress) ([]Problem, error) { return store.Check(dir, progress) }

// Repair sets the damage Check would report aside, so the datasets open
// and answer queries without it.
func Repair(dir string, progress CheckProgress) ([]Problem, error) {
	return store.Repair(dir, progress)
}

// CheckObjects verifies a bucket (-storage): every dataset's catalog, and
// every block it names, whole. It changes nothing.
func CheckObjects(ctx context.Context, objs store.ObjectStore, progress CheckProgress) ([]Problem, error) {
	return store.CheckObjects(ctx, objs, progress)
}
