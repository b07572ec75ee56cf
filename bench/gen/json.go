package gen

import (
	"strconv"
	"strings"
	"time"
	"unicode/utf8"
)

const hexDigits = "0123456789abcdef"

// quote returns s as a JSON string literal. Tables are quoted once so the
// hot path only copies bytes; '&', '<' and '>' stay literal (no HTML
// escaping), as log shippers write them.
func quote(s string) string {
	var b strings.Builder
	b.WriteByte('"')
	for _, c := range s {
		switch {
		case c == '"' || c == '\\':
			b.WriteByte('\\')
			b.WriteRune(c)
		case c < 0x20:
			b.WriteString(`\u00`)
			b.WriteByte(hexDigits[c>>4])
			b.WriteByte(hexDigits[c&0xf])
		case c == utf8.RuneError:
			b.WriteString(`\ufffd`)
		default:
			b.WriteRune(c)
		}
	}
	b.WriteByte('"')
	return b.String()
}

// appendJSON writes e as one JSON object. req_duration_ms always carries a
// decimal point so every decoder types it as a float, never an integer.
func (e *event) appendJSON(dst []byte, t *tables) []byte {
	return append(e.appendFields(dst, t, true), '}')
}

// appendFields writes e as an unclosed JSON object. With pointed, whole
// floats get ".0"; without, they are written as integers, as most JSON
// encoders do.
func (e *event) appendFields(dst []byte, t *tables, pointed bool) []byte {
	dst = append(dst, `{"_time":"`...)
	dst = time.Unix(0, e.time).UTC().AppendFormat(dst, time.RFC3339Nano)
	dst = append(dst, `","id":"`...)
	dst = appendHex64(dst, e.idHi)
	dst = appendHex64(dst, e.idL)
	dst = append(dst, `","method":`...)
	dst = append(dst, t.methodJSON[e.method]...)
	dst = append(dst, `,"uri":`...)
	dst = append(dst, t.uriJSON[e.uri]...)
	dst = append(dst, `,"status":`...)
	dst = strconv.AppendInt(dst, int64(statusCodes[e.status]), 10)
	dst = append(dst, `,"req_duration_ms":`...)
	if pointed {
		dst = appendFloat(dst, e.duration)
	} else {
		dst = strconv.AppendFloat(dst, e.duration, 'f', -1, 64)
	}
	dst = append(dst, `,"resp_body_size":`...)
	dst = strconv.AppendInt(dst, e.size, 10)
	dst = append(dst, `,"user_agent":`...)
	dst = append(dst, t.uaJSON[e.ua]...)
	if e.country >= 0 {
		dst = append(dst, `,"geo":{`...)
		if e.city >= 0 {
			dst = append(dst, `"city":`...)
			dst = append(dst, t.cityJSON[e.country][e.city]...)
			dst = append(dst, ',')
		}
		dst = append(dst, `"country":`...)
		dst = append(dst, t.countryJSON[e.country]...)
		dst = append(dst, '}')
	}
	dst = append(dst, `,"server_datacenter":`...)
	dst = append(dst, t.dcJSON[e.dc]...)
	dst = append(dst, `,"is_tls":`...)
	return strconv.AppendBool(dst, e.tls)
}

// appendFloat writes f in the shortest form that reads back exactly,
// adding ".0" to integral values.
func appendFloat(dst []byte, f float64) []byte {
	n := len(dst)
	dst = strconv.AppendFloat(dst, f, 'f', -1, 64)
	for _, c := range dst[n:] {
		if c == '.' {
			return dst
		}
	}
	return append(dst, ".0"...)
}

// appendHex64 writes x as 16 lower-case hex digits.
func appendHex64(dst []byte, x uint64) []byte {
	for s := 60; s >= 0; s -= 4 {
		dst = append(dst, hexDigits[(x>>uint(s))&0xf])
	}
	return dst
}

// toMap is the value form of appendJSON's output.
func (e *event) toMap(t *tables) map[string]any {
	id := appendHex64(appendHex64(make([]byte, 0, 32), e.idHi), e.idL)
	m := map[string]any{
		"_time":             time.Unix(0, e.time).UTC().Format(time.RFC3339Nano),
		"id":                string(id),
		"method":            methodNames[e.method],
		"uri":               t.uris[e.uri].path,
		"status":            int64(statusCodes[e.status]),
		"req_duration_ms":   e.duration,
		"resp_body_size":    e.size,
		"user_agent":        userAgents[e.ua].ua,
		"server_datacenter": datacenters[e.dc].code,
		"is_tls":            e.tls,
	}
	if e.country >= 0 {
		geo := map[string]any{"country": countries[e.country].name}
		if e.city >= 0 {
			geo["city"] = countries[e.country].cities[e.city]
		}
		m["geo"] = geo
	}
	return m
}
