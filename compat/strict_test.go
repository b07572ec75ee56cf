package compat

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"regexp"
	"sync"
	"testing"

	"github.com/axiomhq/axiom-go/axiom"
	"github.com/axiomhq/axiom-go/axiom/ingest"
	"github.com/axiomhq/axiom-go/axiom/query"
)

// strictTransport decodes every JSON answer into the client's own type with
// DisallowUnknownFields, the check axiom-go's integration suite runs (its
// switch for it is test-only, so it is redone here), and records failures.
type strictTransport struct {
	base http.RoundTripper
	mu   sync.Mutex
	errs []string
	seen int
}

// The client decodes these types through wrappers that accept a few keys
// it ignores; the strict check does the same.
type (
	wrappedOrg struct {
		*axiom.Organization
		FirstFailedPayment any `json:"firstFailedPayment"`
		ExternalPlan       any `json:"externalPlan"`
		Version            any `json:"metaVersion"`
		DefaultRegion      any `json:"defaultRegion"`
	}
	wrappedDataset struct {
		*axiom.Dataset
		IntegrationConfigs any `json:"integrationConfigs,omitempty"`
		IntegrationFilters any `json:"integrationFilters,omitempty"`
		LabelIDs           any `json:"labelIds,omitempty"`
		Labels             any `json:"labels,omitempty"`
		QuickQueries       any `json:"quickQueries,omitempty"`
		SharedByOrg        any `json:"sharedByOrg,omitempty"`
		Region             any `json:"region,omitempty"`
	}
	aplResponse struct {
		query.Result
		Format        any `json:"format"`
		Request       any `json:"request"`
		DatasetNames  any `json:"datasetNames"`
		FieldsMetaMap any `json:"fieldsMetaMap"`
	}
)

func newOrg() *wrappedOrg         { return &wrappedOrg{Organization: &axiom.Organization{}} }
func newDataset() *wrappedDataset { return &wrappedDataset{Dataset: &axiom.Dataset{}} }

// strictShapes maps method + path to a constructor of the client type the
// answer must decode into.
var strictShapes = []struct {
	method string
	path   *regexp.Regexp
	into   func() any
}{
	{"GET", regexp.MustCompile(`^/v2/datasets$`), func() any { return &[]*wrappedDataset{} }},
	{"*", regexp.MustCompile(`^/v2/datasets/[^/]+$`), func() any { return newDataset() }},
	{"POST", regexp.MustCompile(`^/v2/datasets$`), func() any { return newDataset() }},
	{"GET", regexp.MustCompile(`^/v2/datasets/[^/]+/mapfields$`), func() any { return &axiom.MapFields{} }},
	{"PUT", regexp.MustCompile(`^/v2/datasets/[^/]+/mapfields$`), func() any { return &axiom.MapFields{} }},
	{"POST", regexp.MustCompile(`^/v2/datasets/[^/]+/mapfields$`), func() any { return &struct{ Name string }{} }},
	{"POST", regexp.MustCompile(`^/v1/datasets/[^/]+/ingest$`), func() any { return &ingest.Status{} }},
	{"POST", regexp.MustCompile(`^/v1/datasets/_apl$`), func() any { return &aplResponse{} }},
	{"GET", regexp.MustCompile(`^/v2/annotations$`), func() any { return &[]axiom.Annotation{} }},
	{"*", regexp.MustCompile(`^/v2/annotations(/[^/]+)?$`), func() any { return &axiom.Annotation{} }},
	{"GET", regexp.MustCompile(`^/v2/vfields$`), func() any { return &[]axiom.VirtualFieldWithID{} }},
	{"*", regexp.MustCompile(`^/v2/vfields(/[^/]+)?$`), func() any { return &axiom.VirtualFieldWithID{} }},
	{"GET", regexp.MustCompile(`^/v2/user$`), func() any { return &axiom.User{} }},
	{"GET", regexp.MustCompile(`^/v2/users$`), func() any { return &[]axiom.User{} }},
	{"*", regexp.MustCompile(`^/v2/users(/[^/]+)?(/role)?$`), func() any { return &axiom.User{} }},
	{"GET", regexp.MustCompile(`^/v2/orgs$`), func() any { return &[]*wrappedOrg{} }},
	{"GET", regexp.MustCompile(`^/v2/orgs/[^/]+$`), func() any { return newOrg() }},
	{"GET", regexp.MustCompile(`^/v2/tokens$`), func() any { return &[]axiom.APIToken{} }},
	{"GET", regexp.MustCompile(`^/v2/tokens/[^/]+$`), func() any { return &axiom.APIToken{} }},
	{"POST", regexp.MustCompile(`^/v2/tokens(/[^/]+/regenerate)?$`), func() any { return &axiom.CreateTokenResponse{} }},
	{"GET", regexp.MustCompile(`^/v2/notifiers$`), func() any { return &[]axiom.Notifier{} }},
	{"*", regexp.MustCompile(`^/v2/notifiers(/[^/]+)?$`), func() any { return &axiom.Notifier{} }},
	// Monitors have a custom unmarshaler (extra keys tolerated) and
	// dashboards are raw JSON: the client never decodes them strictly.
}

func (s *strictTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	resp, err := s.base.RoundTrip(r)
	if err != nil || resp.StatusCode >= 300 || resp.StatusCode == 204 {
		return resp, err
	}
	body, err := io.ReadAll(resp.Body)
	resp.Body.Close()
	if err != nil {
		return nil, err
	}
	resp.Body = io.NopCloser(bytes.NewReader(body))
	for _, sh := range strictShapes {
		if (sh.method != "*" && sh.method != r.Method) || !sh.path.MatchString(r.URL.Path) {
			continue
		}
		if r.Method == "DELETE" {
			break
		}
		dec := json.NewDecoder(bytes.NewReader(body))
		dec.DisallowUnknownFields()
		s.mu.Lock()
		s.seen++
		if err := dec.Decode(sh.into()); err != nil {
			s.errs = append(s.errs, fmt.Sprintf("%s %s: %v in %s", r.Method, r.URL.Path, err, clip(body)))
		}
		s.mu.Unlock()
		break
	}
	return resp, nil
}

func clip(b []byte) string {
	if len(b) > 400 {
		return string(b[:400]) + "…"
	}
	return string(b)
}

// check fails t for every answer that did not decode strictly.
func (s *strictTransport) check(t *testing.T) {
	t.Helper()
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, e := range s.errs {
		t.Errorf("strict decoding: %s", e)
	}
	if s.seen == 0 {
		t.Error("strict decoding checked no answer")
	}
	s.errs = nil
}
