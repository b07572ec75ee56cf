//go:build !linux

package bench

import (
	"errors"
	"time"
)

// pidCPU needs /proc; elsewhere benchmarks leave another process's CPU out.
func pidCPU(int) (time.Duration, error) { return 0, errors.New("no /proc") }
