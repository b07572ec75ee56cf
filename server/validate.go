package server

import (
	"strings"
	"unicode/utf8"
)

// required answers 400 naming field when v is blank.
func required(field, v string) error {
	if strings.TrimSpace(v) == "" {
		return badRequest("%s is required", field)
	}
	return nil
}

// maxLen answers 400 naming field when v is longer than n characters.
func maxLen(field, v string, n int) error {
	if utf8.RuneCountInString(v) > n {
		return badRequest("%s must be at most %d characters long", field, n)
	}
	return nil
}

// firstErr returns the first non-nil error.
func firstErr(errs ...error) error {
	for _, e := range errs {
		if e != nil {
			return e
		}
	}
	return nil
}

// validDatasetName applies the service's dataset name rules: at most 80
// characters of letters, digits, '-', '_' and '.', not starting or ending
// with one of the punctuation characters, and not using the reserved
// "axiom-" prefix.
func validDatasetName(name string) error {
	if name == "" {
		return badRequest("name is required")
	}
	if len(name) > 80 {
		return badRequest("name must be at most 80 characters long")
	}
	for i := 0; i < len(name); i++ {
		c := name[i]
		switch {
		case c >= 'a' && c <= 'z', c >= 'A' && c <= 'Z', c >= '0' && c <= '9':
		case c == '-' || c == '_' || c == '.':
			if i == 0 || i == len(name)-1 {
				return badRequest("name must not start or end with %q", string(c))
			}
		default:
			return badRequest("name may only contain letters, digits, '-', '_' and '.', found %q", string(c))
		}
	}
	if strings.HasPrefix(strings.ToLower(name), "axiom-") {
		return badRequest("name must not start with the reserved prefix \"axiom-\"")
	}
	return nil
}

// isAnnotationType reports whether s matches ^[a-z0-9-]+$.
func isAnnotationType(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !(c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '-') {
			return false
		}
	}
	return true
}
