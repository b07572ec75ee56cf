package server

import (
	"errors"
	"net/http"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/aplite/aplite/db"
	"github.com/aplite/aplite/server/meta"
)

// defaultDatasetKind is the kind of event datasets.
const defaultDatasetKind = "axiom:events:v1"

// datasetView is the Dataset shape of every dataset response.
type datasetView struct {
	ID                 string    `json:"id"`
	Name               string    `json:"name"`
	Kind               string    `json:"kind"`
	Description        string    `json:"description"`
	Who                string    `json:"who"`
	Created            time.Time `json:"created"`
	UpdatedAt          time.Time `json:"updatedAt"`
	CanWrite           bool      `json:"canWrite"`
	UseRetentionPeriod bool      `json:"useRetentionPeriod"`
	RetentionDays      int       `json:"retentionDays"`
	MapFields          []string  `json:"mapFields"`
}

func viewOf(d *meta.DatasetSettings, canWrite bool) datasetView {
	mf := d.MapFields
	if mf == nil {
		mf = []string{}
	}
	return datasetView{ID: d.Name, Name: d.Name, Kind: d.Kind, Description: d.Description, Who: d.Who,
		Created: d.Created, UpdatedAt: d.UpdatedAt, CanWrite: canWrite,
		UseRetentionPeriod: d.UseRetentionPeriod, RetentionDays: d.RetentionDays, MapFields: mf}
}

// settingsCache keeps dataset settings in memory: ingest needs the map
// fields of its dataset on every request.
type settingsCache struct {
	mu sync.RWMutex
	m  map[string]*meta.DatasetSettings
}

// settings returns a dataset's settings in org view v. They are kept
// under the dataset's stored name (v.key), so the storage org's records
// are where they were before there were several orgs. A dataset the
// storage has but the metadata does not (made by another tool in the same
// data directory) gets settings synthesised from the storage's info and
// saved.
func (s *Server) settings(v orgDatasets, name string) (*meta.DatasetSettings, error) {
	key, ok := v.key(name)
	if !ok {
		return nil, notFound("dataset %q not found", name)
	}
	s.dsets.mu.RLock()
	d, ok := s.dsets.m[key]
	s.dsets.mu.RUnlock()
	if ok {
		return d, nil
	}
	var rec meta.DatasetSettings
	err := s.meta.Get(meta.KindDataset, "", key, &rec)
	if errors.Is(err, meta.ErrNotFound) {
		rec, err = s.synthSettings(v, name, key)
	}
	if err != nil {
		return nil, err
	}
	s.dsets.mu.Lock()
	if s.dsets.m == nil {
		s.dsets.m = make(map[string]*meta.DatasetSettings)
	}
	s.dsets.m[key] = &rec
	s.dsets.mu.Unlock()
	return &rec, nil
}

// synthSettings makes and saves the settings of a dataset that has none.
func (s *Server) synthSettings(v orgDatasets, name, key string) (meta.DatasetSettings, error) {
	info, gerr := v.Info(name)
	if gerr != nil {
		return meta.DatasetSettings{}, notFound("dataset %q not found", name)
	}
	created := info.Created.UTC()
	if created.IsZero() {
		created = time.Now().UTC()
	}
	rec := meta.DatasetSettings{Name: name, Kind: defaultDatasetKind, Created: created, UpdatedAt: created,
		MapFields: []string{}}
	err := s.meta.Update(func(tx *meta.Tx) error {
		if tx.Has(meta.KindDataset, "", key) {
			return tx.Get(meta.KindDataset, "", key, &rec)
		}
		return tx.Put(meta.KindDataset, "", key, rec)
	})
	if errors.Is(err, meta.ErrReadOnly) { // a query node: the settings are only not saved
		err = nil
	}
	return rec, err
}

func (s *Server) forgetSettings(v orgDatasets, name string) {
	key, _ := v.key(name)
	s.dsets.mu.Lock()
	delete(s.dsets.m, key)
	s.dsets.mu.Unlock()
}

// updateSettings changes a dataset's settings in one transaction.
func (s *Server) updateSettings(v orgDatasets, name string, change func(d *meta.DatasetSettings) error) (*meta.DatasetSettings, error) {
	if _, err := s.settings(v, name); err != nil {
		return nil, err
	}
	key, _ := v.key(name)
	var rec meta.DatasetSettings
	err := s.meta.Update(func(tx *meta.Tx) error {
		if err := tx.Get(meta.KindDataset, "", key, &rec); err != nil {
			return err
		}
		if err := change(&rec); err != nil {
			return err
		}
		rec.UpdatedAt = time.Now().UTC()
		return tx.Put(meta.KindDataset, "", key, rec)
	})
	s.forgetSettings(v, name)
	if errors.Is(err, meta.ErrNotFound) {
		return nil, notFound("dataset %q not found", name)
	}
	return &rec, err
}

// datasetRead checks that the caller may see dataset name: personal
// tokens and tokens allowed to read datasets see all of them; other API
// tokens see the datasets they have any capability on.
func (c *call) datasetVisible(name string) bool {
	if c.p.personal() || c.p.canOrg(capDatasets, actRead) {
		return true
	}
	caps := c.p.tok.DatasetCapabilities
	_, own := caps[name]
	_, all := caps["*"]
	return own || all
}

func (c *call) canWriteDataset(name string) bool { return c.p.canDataset(name, capIngest, actCreate) }

func (s *Server) handleListDatasets(c *call) error {
	out := []datasetView{}
	v := c.datasets()
	for _, name := range v.Names() {
		if !c.datasetVisible(name) {
			continue
		}
		d, err := s.settings(v, name)
		if err != nil {
			continue // deleted meanwhile
		}
		out = append(out, viewOf(d, c.canWriteDataset(name)))
	}
	return writeJSON(c.RequestCtx, http.StatusOK, out)
}

// loadDataset returns the settings of the dataset named by the path,
// answering 404 when it does not exist or the caller may not see it.
func (s *Server) loadDataset(c *call) (*meta.DatasetSettings, error) {
	name := c.param("id")
	if !c.datasetVisible(name) {
		return nil, forbidden("token is not allowed to access dataset %q", name)
	}
	v := c.datasets()
	if _, err := v.Info(name); err != nil {
		return nil, notFound("dataset %q not found", name)
	}
	return s.settings(v, name)
}

func (s *Server) handleGetDataset(c *call) error {
	d, err := s.loadDataset(c)
	if err != nil {
		return err
	}
	return writeJSON(c.RequestCtx, http.StatusOK, viewOf(d, c.canWriteDataset(d.Name)))
}

type datasetBody struct {
	Name               string  `json:"name"`
	Kind               string  `json:"kind"`
	Description        *string `json:"description"`
	UseRetentionPeriod *bool   `json:"useRetentionPeriod"`
	RetentionDays      *int    `json:"retentionDays"`
}

func (b *datasetBody) applyTo(d *meta.DatasetSettings) error {
	if b.Description != nil {
		if err := maxLen("description", *b.Description, 1024); err != nil {
			return err
		}
		d.Description = *b.Description
	}
	if b.UseRetentionPeriod != nil {
		d.UseRetentionPeriod = *b.UseRetentionPeriod
	}
	if b.RetentionDays != nil {
		if *b.RetentionDays < 0 {
			return badRequest("retentionDays must not be negative")
		}
		d.RetentionDays = *b.RetentionDays
	}
	if d.UseRetentionPeriod && d.RetentionDays == 0 {
		return badRequest("retentionDays must be positive when useRetentionPeriod is true")
	}
	return nil
}

func (s *Server) handleCreateDataset(c *call) error {
	if err := s.writable(); err != nil {
		return err
	}
	if err := s.metaWritable(); err != nil {
		return err
	}
	if err := c.p.requireOrg(capDatasets, actCreate, "datasets"); err != nil {
		return err
	}
	var b datasetBody
	if err := s.readJSON(c.RequestCtx, &b, false); err != nil {
		return err
	}
	if err := validDatasetName(b.Name); err != nil {
		return err
	}
	if b.Kind == "" {
		b.Kind = defaultDatasetKind
	}
	if err := maxLen("kind", b.Kind, 64); err != nil {
		return err
	}
	now := time.Now().UTC()
	rec := meta.DatasetSettings{Name: b.Name, Kind: b.Kind, Who: c.p.userID, Created: now, UpdatedAt: now,
		MapFields: []string{}}
	if err := b.applyTo(&rec); err != nil {
		return err
	}
	v := c.datasets()
	key, _ := v.key(b.Name) // validDatasetName refused the reserved prefix
	err := s.meta.Update(func(tx *meta.Tx) error {
		if _, err := v.Info(b.Name); err == nil {
			return meta.ErrExists
		}
		return tx.Put(meta.KindDataset, "", key, rec)
	})
	if err == nil {
		err = v.Create(b.Name)
		if err != nil {
			s.meta.Delete(meta.KindDataset, "", key)
		}
	}
	s.forgetSettings(v, b.Name)
	if errors.Is(err, meta.ErrExists) || errors.Is(err, db.ErrExists) {
		return conflict("dataset %q already exists", b.Name)
	}
	if err != nil {
		return err
	}
	return writeJSON(c.RequestCtx, http.StatusOK, viewOf(&rec, c.canWriteDataset(b.Name)))
}

func (s *Server) handleUpdateDataset(c *call) error {
	name := c.param("id")
	if err := c.p.requireOrg(capDatasets, actUpdate, "datasets"); err != nil {
		return err
	}
	var b datasetBody
	if err := s.readJSON(c.RequestCtx, &b, false); err != nil {
		return err
	}
	v := c.datasets()
	if _, err := v.Info(name); err != nil {
		return notFound("dataset %q not found", name)
	}
	d, err := s.updateSettings(v, name, b.applyTo)
	if err != nil {
		return err
	}
	return writeJSON(c.RequestCtx, http.StatusOK, viewOf(d, c.canWriteDataset(name)))
}

func (s *Server) handleDeleteDataset(c *call) error {
	if err := s.writable(); err != nil {
		return err
	}
	if err := s.metaWritable(); err != nil {
		return err
	}
	name := c.param("id")
	if err := c.p.requireOrg(capDatasets, actDelete, "datasets"); err != nil {
		return err
	}
	v := c.datasets()
	if err := v.Delete(name); err != nil {
		if errors.Is(err, db.ErrNotFound) {
			return notFound("dataset %q not found", name)
		}
		return err
	}
	// The dataset's virtual fields go with it.
	err := s.meta.Update(func(tx *meta.Tx) error {
		vfs, err := meta.ListTx[meta.VirtualField](tx, meta.KindVField, c.p.org)
		if err != nil {
			return err
		}
		for _, v := range vfs {
			if v.Dataset == name {
				if err := tx.Delete(meta.KindVField, c.p.org, v.ID); err != nil {
					return err
				}
			}
		}
		if key, _ := v.key(name); tx.Has(meta.KindDataset, "", key) {
			return tx.Delete(meta.KindDataset, "", key)
		}
		return nil
	})
	s.forgetSettings(v, name)
	if err != nil {
		return err
	}
	return noContent(c.RequestCtx)
}

// fieldInfo is one field of /info and /fields.
type fieldInfo struct {
	Name        string `json:"name"`
	Type        string `json:"type"`
	Unit        string `json:"unit"`
	Hidden      bool   `json:"hidden"`
	Description string `json:"description"`
}

// datasetFields lists a dataset's fields (db.Fields: one entry per name,
// a composite type such as "integer|float" for a field stored with
// several) and its virtual fields, sorted by name.
func datasetFields(keys []db.ColKey, vfs []meta.VirtualField) []fieldInfo {
	stored := db.Fields(keys)
	out := make([]fieldInfo, 0, len(stored)+len(vfs))
	for _, f := range stored {
		out = append(out, fieldInfo{Name: f.Name, Type: f.Type})
	}
	for _, v := range vfs {
		out = append(out, fieldInfo{Name: v.Name, Type: v.Type, Unit: v.Unit, Description: v.Description})
	}
	slices.SortStableFunc(out, func(a, b fieldInfo) int { return strings.Compare(a.Name, b.Name) })
	return out
}

func (s *Server) handleDatasetFields(c *call) error {
	d, err := s.loadDataset(c)
	if err != nil {
		return err
	}
	info, err := c.datasets().Info(d.Name)
	if err != nil {
		return notFound("dataset %q not found", d.Name)
	}
	return writeJSON(c.RequestCtx, http.StatusOK, datasetFields(info.Fields, nil))
}

// infoView is the /info shape (axiom-rs).
type infoView struct {
	Name            string      `json:"name"`
	NumBlocks       int         `json:"numBlocks"`
	NumEvents       int64       `json:"numEvents"`
	NumFields       int         `json:"numFields"`
	InputBytes      int64       `json:"inputBytes"`
	CompressedBytes int64       `json:"compressedBytes"`
	MinTime         time.Time   `json:"minTime"`
	MaxTime         time.Time   `json:"maxTime"`
	Created         time.Time   `json:"created"`
	Who             string      `json:"who"`
	Fields          []fieldInfo `json:"fields"`
	// Damaged lists blocks set aside as corrupt (their events are missing
	// from every query; `aplite check` and `aplite repair` act on them).
	Damaged []db.Damage `json:"damaged,omitempty"`
}

func (s *Server) handleDatasetInfo(c *call) error {
	if s.cfg.Ingest != "" {
		// The counts include the events only the ingest node holds, as
		// query answers do; if it cannot be reached, this node's catalog
		// answers for what is flushed.
		if err := s.forwardToIngest(c, s.cfg.QueryTimeout); errors.Is(err, errAnswered) {
			return err
		}
	}
	d, err := s.loadDataset(c)
	if err != nil {
		return err
	}
	info, err := c.datasets().Info(d.Name)
	if err != nil {
		return notFound("dataset %q not found", d.Name)
	}
	fields := datasetFields(info.Fields, nil)
	v := infoView{Name: d.Name, NumBlocks: info.NumBlocks, NumEvents: info.NumEvents, NumFields: len(fields),
		InputBytes: info.InputBytes, CompressedBytes: info.CompressedBytes, Created: d.Created, Who: d.Who,
		Fields: fields, Damaged: info.Damaged}
	if info.NumEvents > 0 {
		v.MinTime, v.MaxTime = time.Unix(0, info.MinTime).UTC(), time.Unix(0, info.MaxTime).UTC()
	}
	return writeJSON(c.RequestCtx, http.StatusOK, v)
}
