//go:build !unix

package bench

import "time"

// processCPU is unknown off unix; benchmarks then report 0 CPU per op.
func processCPU() time.Duration { return 0 }
