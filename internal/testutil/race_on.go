//go:build race

package testutil

// Race is true when the tests run under the race detector, which makes
// them 5 to 20 times slower: a test that checks answers over a large
// matrix runs a slice of it there, since the race run is for finding
// races, and the full matrix already ran without it.
const Race = true
