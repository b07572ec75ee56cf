package store

import (
	"context"
	"encoding/binary"
	"fmt"
	"strconv"
	"strings"
	"time"
)

// catalogFormat is the format of OBJECTS.md this code writes; it reads
// formats 1 (every version full, whole indexes) and 2 (full versions
// with every block inline) as well.
const catalogFormat = 3

// writeFormat is the format writers write: catalogFormat, or 2 where a
// test builds the bucket an earlier aplite left (the upgrade, and the
// old format's figures beside the new one's).
var writeFormat = catalogFormat

// checkpointEvery is how often a writer writes a full version rather than
// a delta: a cold reader reads at most this many objects to build the
// newest version, and a commit between checkpoints costs its change.
const checkpointEvery = 32

// Version kinds (OBJECTS.md, "Catalog versions").
const (
	kindFull  = "full"
	kindDelta = "delta"
)

// catalog is a dataset's catalog at one version, as built from a full
// version and the deltas after it. Values are never changed once built:
// a commit or a delta makes a new one, so readers may hold old ones.
type catalog struct {
	Dataset    string
	Version    uint64
	Created    time.Time
	TrimBefore int64
	NextBlock  uint64
	Blocks     []catalogBlock // live blocks, by id
	Removed    []catalogGone
	// Lease is the fencing token of the writer that wrote this version
	// (OBJECTS.md, "The writer lease"); 0 before writers held leases.
	Lease uint64
	// checkpoint is the newest full version at or below Version.
	checkpoint uint64
	// manifests are the refs of the checkpoint's root (format 3), each
	// with the fingerprint of its blocks when known, so the next
	// checkpoint rewrites only the partitions that changed; width is
	// the checkpoint's partition width (0 before format 3).
	manifests []manifestRef
	width     int64
	// seen is the listing of the Version object this was built from, so a
	// reader can tell "no new version" from one LIST (a dataset deleted
	// and created again reaches the same number with another object).
	seen ObjectInfo
}

// catalogDoc is one catalog version object as stored (OBJECTS.md): a
// full version fills Blocks, a delta Add, Drop and Swept; both may fill
// Removed.
type catalogDoc struct {
	Format     int            `json:"format"`
	Kind       string         `json:"kind,omitempty"` // format 1 has none: full
	Version    uint64         `json:"version"`
	Checkpoint uint64         `json:"checkpoint,omitempty"`
	Dataset    string         `json:"dataset"`
	Created    time.Time      `json:"created"`
	TrimBefore int64          `json:"trimBefore"`
	NextBlock  uint64         `json:"nextBlock"`
	Written    time.Time      `json:"written"`
	Lease      uint64         `json:"lease,omitempty"`
	Blocks     []catalogBlock `json:"blocks,omitempty"`
	Add        []catalogBlock `json:"add,omitempty"`
	Drop       []uint64       `json:"drop,omitempty"`
	Removed    []catalogGone  `json:"removed,omitempty"`
	Swept      []string       `json:"swept,omitempty"`
	// Format 3 roots (OBJECTS.md, "Manifests"): the partitions'
	// manifests instead of Blocks, and the version whose change Add,
	// Drop and Swept describe.
	PartitionWidth int64         `json:"partitionWidth,omitempty"`
	Manifests      []manifestRef `json:"manifests,omitempty"`
	Previous       uint64        `json:"previous,omitempty"`
}

// catalogBlock is one live block: where its object is and its index
// without term filters, so a reader plans with no request.
type catalogBlock struct {
	ID          uint64 `json:"id"`
	Key         string `json:"key"`
	Size        int64  `json:"size"`
	Rows        int    `json:"rows"`
	MinTime     int64  `json:"minTime"`
	MaxTime     int64  `json:"maxTime"`
	WALSeqMax   uint64 `json:"walSeqMax"`
	IndexOffset int64  `json:"indexOffset"`
	// IndexLength is the length of the index in the object; 0 in format
	// 1, whose Index is the object's index itself.
	IndexLength int64 `json:"indexLength,omitempty"`
	// Terms says the object's index has term filters, left out of Index
	// and read from the object when a query first needs them.
	Terms bool `json:"terms,omitempty"`
	// TermRanges says where each column's filters lie in the object, so
	// a query reads only those of the columns it tests.
	TermRanges []termRange `json:"termRanges,omitempty"`
	Index      []byte      `json:"index"` // base64 in JSON
	// BlockVersion is the block's format version (FORMAT.md), which
	// the index's layout follows; 0 means 1.
	BlockVersion int `json:"blockVersion,omitempty"`
}

// termRange is where one column's term filters lie in a block object:
// Col indexes the block's columns; CRC is the CRC-32C of the bytes.
type termRange struct {
	Col int    `json:"col"`
	Off int64  `json:"off"`
	Len int    `json:"len"`
	CRC uint32 `json:"crc"`
}

// catalogGone is a block dropped from the live list, deleted after the
// grace period.
type catalogGone struct {
	Key string    `json:"key"`
	At  time.Time `json:"at"`
}

// Key layout (OBJECTS.md, "Bucket layout").
func datasetPrefix(ds string) string        { return "datasets/" + ds + "/" }
func catalogPrefix(ds string) string        { return datasetPrefix(ds) + "catalog/" }
func catalogKey(ds string, v uint64) string { return fmt.Sprintf("%s%020d.json", catalogPrefix(ds), v) }
func blockPrefix(ds string) string          { return datasetPrefix(ds) + "blocks/" }
func blockKey(ds string, id uint64, nonce string) string {
	return fmt.Sprintf("%s%016x-%s.blk", blockPrefix(ds), id, nonce)
}

// catalogVersions lists a dataset's catalog versions, ascending.
func catalogVersions(ctx context.Context, objs ObjectStore, ds string) ([]uint64, []ObjectInfo, error) {
	res, err := objs.List(ctx, catalogPrefix(ds), "")
	if err != nil {
		return nil, nil, err
	}
	var vs []uint64
	var infos []ObjectInfo
	for _, o := range res.Objects {
		name, ok := strings.CutSuffix(strings.TrimPrefix(o.Key, catalogPrefix(ds)), ".json")
		if !ok {
			continue
		}
		if v, err := strconv.ParseUint(name, 10, 64); err == nil {
			vs = append(vs, v)
			infos = append(infos, o)
		}
	}
	return vs, infos, nil // List returns keys sorted; names are zero-padded
}

// clone copies c so a commit can edit it while readers hold the old one.
func (c *catalog) clone() *catalog {
	n := *c
	n.Blocks = append([]catalogBlock(nil), c.Blocks...)
	n.Removed = append([]catalogGone(nil), c.Removed...)
	return &n
}

// watermark is the highest WAL seq durable in the catalog's blocks.
func (c *catalog) watermark() uint64 {
	w := uint64(0)
	for _, b := range c.Blocks {
		w = max(w, b.WALSeqMax)
	}
	return w
}

// catalogEntry describes a block for the catalog from its encoded bytes:
// its index is written again without term filters (OBJECTS.md: they are
// most of a compacted block's index, and only `has` needs them).
func catalogEntry(key string, id uint64, data []byte, idx *blockIndex) catalogBlock {
	ioff := int64(leU64(data[len(data)-trailerLen:]))
	ilen := int64(binary.LittleEndian.Uint32(data[len(data)-trailerLen+8:]))
	version := int(data[6]) | int(data[7])<<8
	lean := *idx
	lean.cols = append([]colEntry(nil), idx.cols...)
	var ranges []termRange
	for i, c := range idx.cols {
		if len(c.terms) > 0 {
			ranges = append(ranges, termRange{Col: i, Off: c.termsAt, Len: len(c.terms), CRC: crc(c.terms)})
		}
		lean.cols[i].terms, lean.cols[i].filter = nil, nil
	}
	return catalogBlock{ID: id, Key: key, Size: int64(len(data)), Rows: idx.rows, MinTime: idx.minTime,
		MaxTime: idx.maxTime, WALSeqMax: idx.walSeqMax, IndexOffset: ioff, IndexLength: ilen, Terms: len(ranges) > 0,
		TermRanges: ranges, Index: putIndex(nil, &lean, max(version, 1)), BlockVersion: version}
}

// parseCatalogIndex parses a catalog entry's index the way parseBlock
// parses a file's, so damage is a CorruptionError naming the object.
func parseCatalogIndex(b catalogBlock) (*blockIndex, error) {
	ilen := b.IndexLength
	if ilen == 0 { // format 1: the object's own index
		ilen = int64(len(b.Index))
	}
	if b.IndexOffset < headerLen || ilen < 0 || ilen > maxBlockIndex || b.IndexOffset+ilen+trailerLen != b.Size {
		return nil, &CorruptionError{File: b.Key, Reason: "catalog: index offset or size out of range"}
	}
	version := max(b.BlockVersion, 1)
	if version > blockVersion {
		return nil, &CorruptionError{File: b.Key, Reason: fmt.Sprintf("block version %d is newer than this aplite reads", version)}
	}
	return parseIndex(b.Key, b.Index, b.IndexOffset, version)
}
