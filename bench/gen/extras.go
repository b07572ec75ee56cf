package gen

import (
	"strconv"
)

// appendExtras writes the Real (and Wide) shape's fields after e's base
// fields, each preceded by a comma. The order of draws from g.x is part
// of the determinism contract, like next's.
func (g *Generator) appendExtras(dst []byte, e *event) []byte {
	r := g.x
	k := g.n - 1
	dayPos := float64(k%g.perDay) / float64(g.perDay)
	code := statusCodes[e.status]
	kind := g.t.uris[e.uri].kind

	dst = append(dst, `,"message":`...)
	dst = g.appendMessage(dst, e, code)
	if r.Float64() < 0.6 {
		dst = append(dst, `,"trace_id":"`...)
		dst = appendHex64(appendHex64(dst, r.Uint64()), r.Uint64())
		dst = append(dst, '"')
	}
	ip := r.Uint32()
	dst = append(dst, `,"client_ip":"`...)
	for i := 3; i >= 0; i-- {
		dst = strconv.AppendUint(dst, uint64(ip>>(8*i)&0xff), 10)
		if i > 0 {
			dst = append(dst, '.')
		}
	}
	dst = append(dst, '"')
	if kind == kindAPI {
		// A number for the first half of each day, then the string form
		// nginx writes when a request tried several upstreams.
		dst = append(dst, `,"upstream_status":`...)
		if dayPos < 0.5 {
			dst = strconv.AppendInt(dst, int64(code), 10)
		} else if code >= 500 && r.Float64() < 0.5 {
			dst = append(dst, `"502, `...)
			dst = strconv.AppendInt(dst, int64(code), 10)
			dst = append(dst, '"')
		} else {
			dst = append(dst, '"')
			dst = strconv.AppendInt(dst, int64(code), 10)
			dst = append(dst, '"')
		}
	}
	if r.Float64() < 0.4 {
		dst = append(dst, `,"tags":[`...)
		for i := range 1 + r.IntN(3) {
			if i > 0 {
				dst = append(dst, ',')
			}
			dst = appendQuoted(dst, tagWords[r.IntN(len(tagWords))])
		}
		dst = append(dst, ']')
	}
	if dayPos >= 0.2 && dayPos < 0.8 {
		// The service ran on Kubernetes for part of the day only: these
		// fields appear, then disappear.
		app := r.IntN(len(apps))
		dst = append(dst, `,"kubernetes":{"namespace":`...)
		dst = appendQuoted(dst, namespaces[app%len(namespaces)])
		dst = append(dst, `,"pod":{"name":"`...)
		dst = append(dst, apps[app]...)
		dst = append(dst, '-')
		dst = appendHex64(dst, r.Uint64()>>40)
		dst = append(dst, `","labels":{"app":`...)
		dst = appendQuoted(dst, apps[app])
		dst = append(dst, `,"tier":`...)
		dst = appendQuoted(dst, tiers[app%len(tiers)])
		dst = append(dst, `}},"node":{"zone":`...)
		dst = appendQuoted(dst, zones[r.IntN(len(zones))])
		dst = append(dst, `}}`...)
	}
	if kind == kindAsset {
		dst = append(dst, `,"cache":{"status":`...)
		if r.Float64() < 0.8 {
			dst = append(dst, `"HIT","age_s":`...)
			dst = strconv.AppendInt(dst, int64(r.IntN(86400)), 10)
		} else {
			dst = append(dst, `"MISS","age_s":0`...)
		}
		dst = append(dst, '}')
	}
	if code >= 500 {
		dst = append(dst, `,"error":{"kind":`...)
		dst = appendQuoted(dst, errKinds[r.IntN(len(errKinds))])
		dst = append(dst, `,"retryable":`...)
		dst = strconv.AppendBool(dst, r.Float64() < 0.5)
		dst = append(dst, '}')
	}
	if g.shape == Wide {
		dst = g.appendWide(dst)
	}
	return dst
}

// appendMessage writes the free-text log line: what happened to the
// request, a few words of the Zipf vocabulary, sometimes a request id,
// and for some server errors a stack trace.
func (g *Generator) appendMessage(dst []byte, e *event, code int) []byte {
	r, xt := g.x, g.xt
	dst = append(dst, '"')
	dst = append(dst, verbs[r.IntN(len(verbs))]...)
	dst = append(dst, ' ')
	dst = append(dst, methodNames[e.method]...)
	dst = append(dst, ' ')
	uri := g.t.uriJSON[e.uri]
	dst = append(dst, uri[1:len(uri)-1]...)
	dst = append(dst, " status="...)
	dst = strconv.AppendInt(dst, int64(code), 10)
	nw := 3 + r.IntN(6)
	common, rare := r.Float64() < commonP, r.Float64() < rareP
	for i := range nw {
		dst = append(dst, ' ')
		switch {
		case common && i == 1:
			dst = append(dst, CommonWord...)
		case rare && i == nw-1:
			dst = append(dst, RareWord...)
		default:
			dst = append(dst, xt.words[g.words.Uint64()]...)
		}
	}
	if r.Float64() < 0.5 {
		dst = append(dst, " req_id="...)
		dst = appendHex64(dst, r.Uint64())
	}
	if code >= 500 && r.Float64() < 0.3 {
		dst = append(dst, `\npanic: `...)
		dst = append(dst, errKinds[r.IntN(len(errKinds))]...)
		for range 4 + r.IntN(6) {
			dst = append(dst, `\n\tat `...)
			dst = append(dst, frames[r.IntN(len(frames))]...)
			dst = append(dst, " (line "...)
			dst = strconv.AppendInt(dst, int64(10+r.IntN(900)), 10)
			dst = append(dst, ')')
		}
	}
	return append(dst, '"')
}

// appendWide writes six of the 300 sparse fields (Zipf-picked, so some
// are in most events and many in few); a field's type is fixed by its
// index.
func (g *Generator) appendWide(dst []byte) []byte {
	r, xt := g.x, g.xt
	var used [6]int
	for i := range used {
		f := xt.widePicker.pick(r)
		dup := false
		for _, u := range used[:i] {
			dup = dup || u == f
		}
		used[i] = f
		if dup {
			continue
		}
		dst = append(dst, `,"`...)
		dst = append(dst, xt.wideNames[f]...)
		dst = append(dst, `":`...)
		switch wideKinds[f%len(wideKinds)] {
		case "int":
			dst = strconv.AppendInt(dst, int64(r.IntN(100000)), 10)
		case "float":
			dst = strconv.AppendFloat(dst, float64(r.IntN(1000000))/1000, 'f', -1, 64)
		case "string":
			dst = appendQuoted(dst, xt.words[g.words.Uint64()])
		default:
			dst = strconv.AppendBool(dst, r.Float64() < 0.5)
		}
	}
	return dst
}

// appendQuoted writes s, which needs no escapes, as a JSON string.
func appendQuoted(dst []byte, s string) []byte {
	dst = append(dst, '"')
	dst = append(dst, s...)
	return append(dst, '"')
}
