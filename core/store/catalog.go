package store

import (
	"context"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"
)

// catalogFormat is the version of OBJECTS.md this code reads and writes.
const catalogFormat = 1

// catalog is one version of a dataset's catalog (OBJECTS.md).
type catalog struct {
	Format     int            `json:"format"`
	Version    uint64         `json:"version"`
	Dataset    string         `json:"dataset"`
	Created    time.Time      `json:"created"`
	TrimBefore int64          `json:"trimBefore"`
	NextBlock  uint64         `json:"nextBlock"`
	Written    time.Time      `json:"written"`
	Blocks     []catalogBlock `json:"blocks"`
	Removed    []catalogGone  `json:"removed,omitempty"`
}

// catalogBlock is one live block: where its object is and its index, so a
// reader needs no request to plan.
type catalogBlock struct {
	ID          uint64 `json:"id"`
	Key         string `json:"key"`
	Size        int64  `json:"size"`
	Rows        int    `json:"rows"`
	MinTime     int64  `json:"minTime"`
	MaxTime     int64  `json:"maxTime"`
	WALSeqMax   uint64 `json:"walSeqMax"`
	IndexOffset int64  `json:"indexOffset"`
	Index       []byte `json:"index"` // base64 in JSON
	// BlockVersion is the block's format version (FORMAT.md), which
	// the index's layout follows; 0 means 1.
	BlockVersion int `json:"blockVersion,omitempty"`
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

// loadCatalog reads the newest catalog version of ds; nil, nil when the
// dataset has none. A version deleted between list and read (the sweep)
// makes it list again.
func loadCatalog(ctx context.Context, objs ObjectStore, ds string) (*catalog, error) {
	for attempt := 0; ; attempt++ {
		vs, _, err := catalogVersions(ctx, objs, ds)
		if err != nil || len(vs) == 0 {
			return nil, err
		}
		key := catalogKey(ds, vs[len(vs)-1])
		b, err := objs.Get(ctx, key)
		if errors.Is(err, ErrObjectNotFound) && attempt < 3 {
			continue
		}
		if err != nil {
			return nil, err
		}
		var c catalog
		if err := json.Unmarshal(b, &c); err != nil {
			return nil, &CorruptionError{File: key, Reason: "catalog: " + err.Error()}
		}
		if c.Format != catalogFormat {
			return nil, &CorruptionError{File: key, Reason: fmt.Sprintf("catalog format %d, this aplite reads %d", c.Format, catalogFormat)}
		}
		return &c, nil
	}
}

// writeCatalog writes c as version c.Version, failing if that version
// exists (another writer: OBJECTS.md, rule 3).
func writeCatalog(ctx context.Context, objs ObjectStore, c *catalog) error {
	c.Format = catalogFormat
	c.Written = time.Now().UTC()
	b, err := json.Marshal(c)
	if err != nil {
		return err
	}
	if err := objs.PutIfAbsent(ctx, catalogKey(c.Dataset, c.Version), b); err != nil {
		return fmt.Errorf("store: dataset %s: writing catalog version %d: %w", c.Dataset, c.Version, err)
	}
	return nil
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

// catalogEntry describes a block for the catalog from its encoded bytes.
func catalogEntry(key string, id uint64, data []byte, idx *blockIndex) catalogBlock {
	ioff := int64(leU64(data[len(data)-trailerLen:]))
	ilen := int64(binary.LittleEndian.Uint32(data[len(data)-trailerLen+8:]))
	return catalogBlock{ID: id, Key: key, Size: int64(len(data)), Rows: idx.rows, MinTime: idx.minTime,
		MaxTime: idx.maxTime, WALSeqMax: idx.walSeqMax, IndexOffset: ioff,
		Index: append([]byte(nil), data[ioff:ioff+ilen]...), BlockVersion: int(data[6]) | int(data[7])<<8}
}

// parseCatalogIndex parses a catalog entry's index the way parseBlock
// parses a file's, so damage is a CorruptionError naming the object.
func parseCatalogIndex(b catalogBlock) (*blockIndex, error) {
	if b.IndexOffset < headerLen || b.IndexOffset+int64(len(b.Index))+trailerLen != b.Size {
		return nil, &CorruptionError{File: b.Key, Reason: "catalog: index offset or size out of range"}
	}
	version := max(b.BlockVersion, 1)
	if version > blockVersion {
		return nil, &CorruptionError{File: b.Key, Reason: fmt.Sprintf("block version %d is newer than this aplite reads", version)}
	}
	return parseIndex(b.Key, b.Index, b.IndexOffset, version)
}
