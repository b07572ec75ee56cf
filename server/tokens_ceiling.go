package server

import (
	"reflect"
	"slices"
	"strings"

	"github.com/aplite/aplite/server/meta"
)

// Capabilities are a ceiling (issue 12): creating or regenerating a token
// checks that the caller holds every capability the new token asks for,
// so a token can never mint one stronger than itself. A personal token
// acts with its user's role in the org: every capability, or reads only
// for the read-only role (which cannot create tokens at all); an API token holds exactly its own capabilities, and a
// grant on "*" needs the caller to hold the capability on "*" itself.

// ceiling fails with 403, naming the first capability the caller lacks.
func (p *principal) ceiling(ds map[string]meta.DatasetCaps, org meta.OrgCaps) error {
	if p.personal() {
		return nil
	}
	for name, caps := range ds {
		want := reflect.ValueOf(caps)
		for i := 0; i < want.NumField(); i++ {
			for _, action := range want.Field(i).Interface().([]string) {
				if !p.holdsDataset(name, i, action) {
					return forbidden("cannot grant datasetCapabilities[%q].%s %q: the calling token does not hold it",
						name, jsonName(want.Type().Field(i)), action)
				}
			}
		}
	}
	want := reflect.ValueOf(org)
	have := reflect.ValueOf(p.tok.OrgCapabilities)
	for i := 0; i < want.NumField(); i++ {
		held := have.Field(i).Interface().([]string)
		for _, action := range want.Field(i).Interface().([]string) {
			if !slices.Contains(held, action) {
				return forbidden("cannot grant orgCapabilities.%s %q: the calling token does not hold it",
					jsonName(want.Type().Field(i)), action)
			}
		}
	}
	return nil
}

// holdsDataset reports whether the caller holds action in field i of the
// dataset capabilities for name: through its own entry for name or its
// "*" entry; for name "*", through "*" only.
func (p *principal) holdsDataset(name string, field int, action string) bool {
	for _, key := range []string{"*", name} {
		caps, ok := p.tok.DatasetCapabilities[key]
		if !ok || (key != "*" && name == "*") {
			continue
		}
		if slices.Contains(reflect.ValueOf(caps).Field(field).Interface().([]string), action) {
			return true
		}
	}
	return false
}

func jsonName(f reflect.StructField) string {
	name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
	return name
}
