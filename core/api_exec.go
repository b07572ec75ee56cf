package core

import (
	"github.com/aplite/aplite/core/exec"
	"github.com/aplite/aplite/core/store"
)

// The names the engine's users reach through package core that the
// execution defines: core stays the one package they import.

// Catalog is exec.Catalog.
type Catalog = exec.Catalog

// Chunk is exec.Chunk.
type Chunk = exec.Chunk

// ChunkReader is exec.ChunkReader.
type ChunkReader = exec.ChunkReader

// Distribution is exec.Distribution.
type Distribution = exec.Distribution

// ErrFragmentParts is exec.ErrFragmentParts.
var ErrFragmentParts = exec.ErrFragmentParts

// UnreachableIngest is exec.UnreachableIngest.
var UnreachableIngest = exec.UnreachableIngest

// ErrNoAnswer is exec.ErrNoAnswer.
var ErrNoAnswer = exec.ErrNoAnswer

// ErrNeedsIngest is exec.ErrNeedsIngest.
var ErrNeedsIngest = exec.ErrNeedsIngest

// ErrFragmentSchema is exec.ErrFragmentSchema.
var ErrFragmentSchema = exec.ErrFragmentSchema

// ErrMemoryExceeded is exec.ErrMemoryExceeded.
var ErrMemoryExceeded = exec.ErrMemoryExceeded

// ErrStreamSchema is exec.ErrStreamSchema.
var ErrStreamSchema = exec.ErrStreamSchema

// ForbiddenError is exec.ForbiddenError.
type ForbiddenError = exec.ForbiddenError

// Fragment is exec.Fragment.
type Fragment = exec.Fragment

// FunctionInfo is exec.FunctionInfo.
type FunctionInfo = exec.FunctionInfo

// Functions is exec.Functions.
func Functions() []exec.FunctionInfo { return exec.Functions() }

// QueryError is exec.QueryError.
type QueryError = exec.QueryError

// Request is exec.Request.
type Request = exec.Request

// StoreCatalog is exec.StoreCatalog.
func StoreCatalog(a0 *store.DB) exec.Catalog { return exec.StoreCatalog(a0) }

// TableStream is exec.TableStream.
type TableStream = exec.TableStream

// SplitStream is a TableStream read in pieces by several engines.
type SplitStream = exec.SplitStream

// VirtualField is exec.VirtualField.
type VirtualField = exec.VirtualField
