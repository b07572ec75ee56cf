package otlp

import (
	"strings"

	commonpb "go.opentelemetry.io/proto/otlp/common/v1"

	"github.com/aplite/aplite/core/store"
)

// Custom attributes. Axiom keeps a span's or log record's attributes
// that the OpenTelemetry semantic conventions define as fields of their
// own (attributes.http.method, attributes.http.response.status_code) and
// puts every other one, under its full name, into the one map field
// attributes.custom (map-fields.mdx: instrumentation can add thousands
// of arbitrary attributes, and each would be a field), queried as
// ['attributes.custom']['custom.user'].
//
// The conventions are those of semconv v1.13.0 to v1.43.0, the names
// Axiom's documentation shows as fields (http.flavor and
// http.response.status_code alike); the older names it shows in
// attributes.custom (http.host, http.server_name, net.peer.ip) were
// dropped from the conventions by v1.13.0. semconv_keys.go holds the
// names, generated from the otel module's semconv packages:
//
//	cd $(go env GOMODCACHE)/go.opentelemetry.io/otel@v1.46.0/semconv &&
//	grep -rhoE 'attribute\.Key\("[^"]+"\)' v1.1[3-9].* v1.[2-4][0-9].* | sed 's/attribute.Key("//; s/")//' | sort -u
//
// and the template prefixes with '"[a-z0-9_.]+\."\s*\+' in the same files.

var semconv = func() map[string]bool {
	m := map[string]bool{}
	for _, k := range strings.Fields(semconvKeys) {
		m[k] = true
	}
	return m
}()

var semconvTemplates = strings.Fields(semconvPrefixes)

// isSemconv tells whether an attribute name is one of the conventions'.
func isSemconv(key string) bool {
	if semconv[key] {
		return true
	}
	for _, p := range semconvTemplates {
		if strings.HasPrefix(key, p) && len(key) > len(p) {
			return true
		}
	}
	return false
}

// setAttributes writes a span's or log record's attributes: the
// conventions' as attributes.<name>, the others in attributes.custom.
func setAttributes(b *store.RowsBuilder, kvs []*commonpb.KeyValue) {
	var custom map[string]any
	for _, kv := range kvs {
		if isSemconv(kv.Key) {
			setValue(b, "attributes."+kv.Key, kv.Value)
			continue
		}
		if custom == nil {
			custom = make(map[string]any, len(kvs))
		}
		custom[kv.Key] = anyValue(kv.Value)
	}
	if custom != nil {
		b.SetDynamic("attributes.custom", custom)
	}
}
