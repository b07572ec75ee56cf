package exec

import (
	"fmt"
	"runtime/debug"
)

// InternalError is a panic inside the engine, turned into the failure of
// the one query that met it. A scan worker is a goroutine of its own, so a
// panic there cannot be recovered by the caller's request handler and
// would end the process: every query and every other tenant's ingest with
// it. A fragment's plan comes from another node, so a plan the builder's
// checks miss must not be able to stop this one (a fuzzer over fragment
// plans found eight that did). The stack is kept for the server's log.
type InternalError struct {
	Value any
	Stack []byte
}

func (e *InternalError) Error() string { return fmt.Sprintf("internal error: %v", e.Value) }

// RecoverInto stores a panic of the calling goroutine in *err as an
// InternalError. Use it deferred, directly.
func RecoverInto(err *error) {
	if r := recover(); r != nil {
		*err = &InternalError{Value: r, Stack: debug.Stack()}
	}
}
