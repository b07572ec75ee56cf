package difftest

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"slices"
	"strconv"
	"time"

	"github.com/aplite/aplite/bench/gen"
)

// Params are the data generator's settings; with the seed they fix the
// data byte for byte, so a failure's report names them.
type Params struct {
	Seed   int64
	Events int // events of dataset logs
	Chunks int // appends the events arrive in (each a block once flushed)
	Dims   int // rows of dataset dims, the join's other side
}

// String names the parameters as a failure report shows them.
func (p Params) String() string {
	return fmt.Sprintf("seed=%d events=%d chunks=%d dims=%d", p.Seed, p.Events, p.Chunks, p.Dims)
}

// Now is the fixed ingest and query time: the day after the data's day,
// so now() and ago() are reproducible.
var Now = gen.Day0.Add(36 * time.Hour)

// Data is one generated pair of datasets as NDJSON, and the values seen
// per flattened field (in line order), from which queries draw their
// constants so that predicates select something.
type Data struct {
	Params Params
	Logs   [][]byte // Params.Chunks chunks of whole lines
	Dims   []byte
	Values map[string][]any // field -> up to maxValues distinct values
	Words  []string         // words of the free-text message
}

const maxValues = 40

// Generate makes the datasets for p: bench/gen's Real shape (whole
// floats without a point, free text, sparse nested fields, arrays, a
// field that turns from number to string mid-day), roughened further
// as real shippers do: numbers sent as strings, explicit nulls, fields
// left out, exponent notation, an object sent as a string.
func Generate(p Params) *Data {
	d := &Data{Params: p, Values: map[string][]any{}}
	r := rand.New(rand.NewPCG(uint64(p.Seed), 0x64696666))
	g := gen.NewWith(p.Seed, gen.Options{Shape: gen.Real, EventsPerDay: p.Events})
	raw := g.AppendNDJSON(nil, p.Events)
	var lines [][]byte
	words := map[string]bool{}
	for line := range bytes.Lines(raw) {
		ev := decode(line)
		roughen(r, ev)
		d.observe("", ev)
		if m, ok := ev["message"].(string); ok && len(d.Words) < 400 {
			for _, w := range bytes.Fields([]byte(m)) {
				if s := string(w); !words[s] && len(s) > 2 {
					words[s] = true
					d.Words = append(d.Words, s)
				}
			}
		}
		lines = append(lines, encode(ev))
	}
	per := (len(lines) + p.Chunks - 1) / p.Chunks
	for i := 0; i < len(lines); i += per {
		d.Logs = append(d.Logs, bytes.Join(lines[i:min(i+per, len(lines))], nil))
	}
	d.Dims = d.dims(r)
	return d
}

// roughen changes a few events the way real senders differ from a tidy
// encoder.
func roughen(r *rand.Rand, ev map[string]any) {
	switch x := r.IntN(200); {
	case x < 4: // a number sent as a string
		k := []string{"status", "resp_body_size", "req_duration_ms"}[r.IntN(3)]
		if n, ok := ev[k].(json.Number); ok {
			ev[k] = string(n)
		}
	case x < 8: // an explicit null
		k := []string{"status", "method", "req_duration_ms", "geo", "tags", "message"}[r.IntN(6)]
		ev[k] = nil
	case x < 10: // a field left out
		delete(ev, []string{"req_duration_ms", "method", "server_datacenter"}[r.IntN(3)])
	case x < 11: // exponent notation, as JSON encoders write very small and very large numbers
		ev["req_duration_ms"] = json.Number("2.5e-7")
	case x < 12:
		ev["resp_body_size"] = json.Number("1e+21")
	case x < 13: // an object sent as a string
		ev["geo"] = "unknown"
	case x < 14:
		ev["tags"] = []any{}
	case x < 15: // a whole number written with a point
		if n, ok := ev["status"].(json.Number); ok {
			ev["status"] = json.Number(string(n) + ".0")
		}
	}
}

// observe records the values of ev's fields under their flattened names
// (geo.city), as the store names nested fields.
func (d *Data) observe(prefix string, ev map[string]any) {
	for k, v := range ev {
		name := prefix + k
		if m, ok := v.(map[string]any); ok {
			d.observe(name+".", m)
			continue
		}
		if _, ok := v.([]any); ok || v == nil {
			continue
		}
		if n, ok := v.(json.Number); ok {
			if i, err := n.Int64(); err == nil {
				v = i
			} else if f, err := n.Float64(); err == nil {
				v = f
			}
		}
		vs := d.Values[name]
		if len(vs) < maxValues && !slices.Contains(vs, v) {
			d.Values[name] = append(vs, v)
		}
	}
}

// dims is the join's other side: one row per datacenter seen in logs
// (some twice, so a join multiplies rows), plus keys logs never has,
// a null key and a key of the wrong type.
func (d *Data) dims(r *rand.Rand) []byte {
	dcs := make([]string, 0, len(d.Values["server_datacenter"]))
	for _, v := range d.Values["server_datacenter"] {
		if s, ok := v.(string); ok {
			dcs = append(dcs, s)
		}
	}
	slices.Sort(dcs)
	dcs = append(dcs, "XXX", "YYY")
	codes := []int{200, 201, 204, 301, 304, 400, 401, 403, 404, 429, 500, 502, 503}
	var out []byte
	for i := range d.Params.Dims {
		ev := map[string]any{
			"_time":    gen.Day0.Add(time.Duration(i) * 37 * time.Minute).Format(time.RFC3339Nano),
			"dc":       dcs[r.IntN(len(dcs))],
			"region":   []string{"eu", "us", "apac", "latam"}[r.IntN(4)],
			"capacity": json.Number(strconv.Itoa(r.IntN(1000))),
			"weight":   json.Number(strconv.FormatFloat(float64(r.IntN(1000))/8, 'f', -1, 64)),
			"code":     json.Number(strconv.Itoa(codes[r.IntN(len(codes))])),
		}
		switch r.IntN(10) {
		case 0:
			ev["dc"] = nil
		case 1:
			ev["code"] = strconv.Itoa(codes[r.IntN(len(codes))])
		case 2:
			delete(ev, "weight")
		case 3:
			ev["dc"] = json.Number("7")
		}
		out = append(out, encode(ev)...)
	}
	return out
}

func decode(line []byte) map[string]any {
	dec := json.NewDecoder(bytes.NewReader(line))
	dec.UseNumber()
	var ev map[string]any
	if err := dec.Decode(&ev); err != nil {
		panic("difftest: generated line is not JSON: " + err.Error())
	}
	return ev
}

func encode(ev map[string]any) []byte {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(ev); err != nil {
		panic("difftest: " + err.Error())
	}
	return b.Bytes()
}
