package fn

import (
	"encoding/base64"
	"net/url"
	"regexp"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/aplite/aplite/vector"
)

// Encodings: base64, URL escaping, code points and quoting.

func init() {
	Register(&Func{Name: "base64_encode_tostring", Family: famString, MinArgs: 1, MaxArgs: 1,
		Result: Sig("base64_encode_tostring", vector.String, KString),
		Eval: strFunc(vector.String, func(s string) (string, bool) {
			return base64.StdEncoding.EncodeToString([]byte(s)), true
		}),
		Doc: "Encodes a string as base64."})
	Register(&Func{Name: "base64_decode_tostring", Family: famString, MinArgs: 1, MaxArgs: 1,
		Result: Sig("base64_decode_tostring", vector.String, KString),
		Eval: strFunc(vector.String, func(s string) (string, bool) {
			b, ok := decodeBase64(s)
			if !ok || !utf8.Valid(b) {
				return "", false
			}
			return string(b), true
		}),
		Doc: "Decodes a base64 string to UTF-8; null when the input is not base64 or not UTF-8."})
	Register(&Func{Name: "base64_decode_toarray", Family: famString, MinArgs: 1, MaxArgs: 1,
		Result: Sig("base64_decode_toarray", vector.Dynamic, KString),
		Eval: strFunc(vector.Dynamic, func(s string) (any, bool) {
			b, ok := decodeBase64(s)
			if !ok {
				return nil, false
			}
			out := make([]any, len(b))
			for i, c := range b {
				out[i] = int64(c)
			}
			return out, true
		}),
		Doc: "Decodes a base64 string to an array of byte values."})
	Register(&Func{Name: "base64_encode_fromarray", Family: famString, MinArgs: 1, MaxArgs: 1,
		Result: Sig("base64_encode_fromarray", vector.String, KDyn),
		Eval: func(_ *Context, args []*vector.Vector, n Rows) (*vector.Vector, error) {
			return Unary(vector.String, args[0], n, ToDynamic, encodeByteArray), nil
		},
		Doc: "Encodes an array of byte values (0-255) as base64."})
	Register(&Func{Name: "url_encode", Family: famString, MinArgs: 1, MaxArgs: 1,
		Result: Sig("url_encode", vector.String, KString),
		Eval:   strFunc(vector.String, func(s string) (string, bool) { return url.QueryEscape(s), true }),
		Doc:    "Percent-encodes a string for use in a URL."})
	Register(&Func{Name: "url_decode", Family: famString, MinArgs: 1, MaxArgs: 1,
		Result: Sig("url_decode", vector.String, KString),
		Eval: strFunc(vector.String, func(s string) (string, bool) {
			d, err := url.QueryUnescape(s)
			return d, err == nil
		}),
		Doc: "Decodes a percent-encoded string; null when malformed."})
	Register(&Func{Name: "unicode_codepoints_from_string", Family: famString, MinArgs: 1, MaxArgs: 1,
		Result: Sig("unicode_codepoints_from_string", vector.Dynamic, KString),
		Eval: strFunc(vector.Dynamic, func(s string) (any, bool) {
			out := make([]any, 0, len(s))
			for _, r := range s {
				out = append(out, int64(r))
			}
			return out, true
		}),
		Doc: "Array of the Unicode code points of a string."})
	Register(&Func{Name: "unicode_codepoints_to_string", Family: famString, MinArgs: 1, MaxArgs: -1,
		Result: Sig("unicode_codepoints_to_string", vector.String, Of(vector.Int, vector.Dynamic)),
		Eval:   evalCodepointsToString,
		Doc:    "String made of the given code points (longs or arrays of longs); null for an invalid code point."})
	Register(&Func{Name: "quote", Family: famString, MinArgs: 1, MaxArgs: 1,
		Result: Sig("quote", vector.String, KString),
		Eval:   strFunc(vector.String, func(s string) (string, bool) { return strconv.Quote(s), true }),
		Doc:    "The string as a double-quoted literal with quotes and special characters escaped."})
	Register(&Func{Name: "regex_quote", Family: famString, MinArgs: 1, MaxArgs: 1,
		Result: Sig("regex_quote", vector.String, KString),
		Eval:   strFunc(vector.String, func(s string) (string, bool) { return regexp.QuoteMeta(s), true }),
		Doc:    "Escapes regex metacharacters so the string matches literally."})
}

// decodeBase64 accepts standard and URL alphabets, padded or not.
func decodeBase64(s string) ([]byte, bool) {
	s = strings.TrimSpace(s)
	for _, enc := range []*base64.Encoding{base64.StdEncoding, base64.RawStdEncoding, base64.URLEncoding, base64.RawURLEncoding} {
		if b, err := enc.DecodeString(s); err == nil {
			return b, true
		}
	}
	return nil, false
}

func encodeByteArray(d any) (string, bool) {
	arr, ok := d.([]any)
	if !ok {
		return "", false
	}
	b := make([]byte, len(arr))
	for i, x := range arr {
		c, ok := DynInt(x)
		if !ok || c < 0 || c > 255 {
			return "", false
		}
		b[i] = byte(c)
	}
	return base64.StdEncoding.EncodeToString(b), true
}

func evalCodepointsToString(_ *Context, args []*vector.Vector, n Rows) (*vector.Vector, error) {
	var sb strings.Builder
	return Each(vector.String, args, n, func(i int) (string, bool) {
		sb.Reset()
		for _, a := range args {
			d, ok := ToDynamic(a, i)
			if !ok {
				return "", false
			}
			if !appendCodepoints(&sb, d) {
				return "", false
			}
		}
		return sb.String(), true
	}), nil
}

func appendCodepoints(sb *strings.Builder, d any) bool {
	if arr, ok := d.([]any); ok {
		for _, x := range arr {
			if !appendCodepoints(sb, x) {
				return false
			}
		}
		return true
	}
	c, ok := DynInt(d)
	if !ok || c < 0 || c > utf8.MaxRune || !utf8.ValidRune(rune(c)) {
		return false
	}
	sb.WriteRune(rune(c))
	return true
}
