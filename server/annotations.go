package server

import (
	"bytes"
	"slices"
	"strings"
	"time"

	"github.com/aplite/aplite/server/meta"
)

// annotationBody is a create or update body; pointers tell "absent" from
// "empty", since updates change only the fields they carry.
type annotationBody struct {
	Datasets    *[]string `json:"datasets"`
	Time        *string   `json:"time"`
	EndTime     *string   `json:"endTime"`
	Title       *string   `json:"title"`
	Description *string   `json:"description"`
	URL         *string   `json:"url"`
	Type        *string   `json:"type"`
}

func annotationResource(s *Server) *resource[meta.Annotation] {
	return &resource[meta.Annotation]{
		kind:    meta.KindAnnotation,
		what:    "annotation",
		allowed: orgPerm[meta.Annotation](capAnnotations, "annotations"),
		newID:   func() string { return meta.NewShortID("ann_") },
		id:      func(a *meta.Annotation) string { return a.ID },
		setID:   func(a *meta.Annotation, id string) { a.ID = id },
		validID: func(id string) error {
			if !strings.HasPrefix(id, "ann_") {
				return badRequest("id %q is not an annotation id: it must match ^ann_", id)
			}
			return nil
		},
		create: func(c *call) (*meta.Annotation, error) {
			var b annotationBody
			if err := c.s.readJSON(c.RequestCtx, &b, false); err != nil {
				return nil, err
			}
			if b.Datasets == nil {
				return nil, badRequest("datasets is required: name at least one dataset")
			}
			if b.Type == nil || *b.Type == "" {
				return nil, badRequest("type is required")
			}
			a := &meta.Annotation{Time: time.Now().UTC()}
			return a, b.apply(a)
		},
		update: func(c *call, old meta.Annotation) (*meta.Annotation, error) {
			var b annotationBody
			if err := c.s.readJSON(c.RequestCtx, &b, false); err != nil {
				return nil, err
			}
			return &old, b.apply(&old)
		},
		keep: annotationFilter,
		sortList: func(as []meta.Annotation) {
			slices.SortStableFunc(as, func(a, b meta.Annotation) int { return a.Time.Compare(b.Time) })
		},
	}
}

// apply validates the body and writes its fields into a.
func (b *annotationBody) apply(a *meta.Annotation) error {
	if b.Datasets != nil {
		if len(*b.Datasets) == 0 {
			return badRequest("datasets must contain at least one dataset name")
		}
		for _, d := range *b.Datasets {
			if d == "" {
				return badRequest("datasets must not contain an empty name")
			}
		}
		a.Datasets = slices.Clone(*b.Datasets)
	}
	if b.Type != nil {
		if err := maxLen("type", *b.Type, 256); err != nil {
			return err
		}
		if !isAnnotationType(*b.Type) {
			return badRequest("type %q must match ^[a-z0-9-]+$", *b.Type)
		}
		a.Type = *b.Type
	}
	for _, f := range []struct {
		name string
		v    *string
		max  int
		dst  *string
	}{{"title", b.Title, 256, &a.Title}, {"description", b.Description, 512, &a.Description}, {"url", b.URL, 512, &a.URL}} {
		if f.v == nil {
			continue
		}
		if err := maxLen(f.name, *f.v, f.max); err != nil {
			return err
		}
		*f.dst = *f.v
	}
	now := time.Now()
	if b.Time != nil && *b.Time != "" {
		t, err := parseTime(*b.Time, now)
		if err != nil {
			return badRequest("time: %v", err)
		}
		a.Time = t
	}
	if b.EndTime != nil && *b.EndTime != "" {
		t, err := parseTime(*b.EndTime, now)
		if err != nil {
			return badRequest("endTime: %v", err)
		}
		a.EndTime = &t
	}
	if a.EndTime != nil && a.EndTime.Before(a.Time) {
		return badRequest("endTime must not be before time")
	}
	return nil
}

// annotationFilter reads the list filters in every encoding clients use:
// datasets as repeated, comma-joined, datasets[] or datasets[N]
// parameters; start and end as times, where axiom-go before v0.37.1 sent
// end as a second start and zero times for unset bounds.
func annotationFilter(c *call) (func(*meta.Annotation) bool, error) {
	args := c.QueryArgs()
	var want []string
	for k, v := range args.All() {
		if !bytes.Equal(k, []byte("datasets")) && !bytes.HasPrefix(k, []byte("datasets[")) {
			continue
		}
		for _, d := range strings.Split(string(v), ",") {
			if d = strings.TrimSpace(d); d != "" {
				want = append(want, d)
			}
		}
	}
	now := time.Now()
	bound := func(raw []byte, name string) (time.Time, error) {
		if len(raw) == 0 {
			return time.Time{}, nil
		}
		t, err := parseTime(string(raw), now)
		if err != nil {
			return time.Time{}, badRequest("%s: %v", name, err)
		}
		if t.Year() <= 1 {
			return time.Time{}, nil // a zero Go time means "no bound"
		}
		return t, nil
	}
	starts := args.PeekMulti("start")
	var start, end time.Time
	var err error
	if len(starts) > 0 {
		if start, err = bound(starts[0], "start"); err != nil {
			return nil, err
		}
	}
	if e := args.Peek("end"); len(e) > 0 {
		end, err = bound(e, "end")
	} else if len(starts) > 1 {
		end, err = bound(starts[1], "end")
	}
	if err != nil {
		return nil, err
	}
	return func(a *meta.Annotation) bool {
		if len(want) > 0 && !slices.ContainsFunc(a.Datasets, func(d string) bool { return slices.Contains(want, d) }) {
			return false
		}
		last := a.Time
		if a.EndTime != nil {
			last = *a.EndTime
		}
		if !start.IsZero() && last.Before(start) {
			return false
		}
		if !end.IsZero() && a.Time.After(end) {
			return false
		}
		return true
	}, nil
}
