package gen

import (
	"math"
	"math/rand/v2"
	"sync"
	"time"
)

// DefaultEventsPerDay is how many events a New generator spreads over one
// simulated day: the 1M-event benchmark dataset covers exactly Day0.
const DefaultEventsPerDay = 1_000_000

const dayNs = int64(24 * time.Hour)

// Generator produces HTTP access-log events. The same seed always yields
// the same events. A Generator is not safe for concurrent use; give each
// goroutine its own (with its own seed).
type Generator struct {
	r      *rand.Rand
	zipf   *rand.Zipf
	t      *tables
	n      int64 // events produced so far
	perDay int64
	// The Real and Wide shapes' extra fields draw from their own stream x
	// so the base fields stay the same for every shape.
	shape Shape
	x     *rand.Rand
	xt    *extraTables
	words *rand.Zipf
}

// New returns a generator seeded with seed, spreading DefaultEventsPerDay
// events over each simulated day.
func New(seed int64) *Generator {
	r := rand.New(rand.NewPCG(uint64(seed), 0x617a6c6974650000^uint64(seed)))
	t := sharedTables()
	return &Generator{
		r: r,
		// v = 3 flattens the very head a little: the hottest path takes
		// about 5% of the traffic, not a third.
		zipf:   rand.NewZipf(r, 1.1, 3, uint64(len(t.uris)-1)),
		t:      t,
		perDay: DefaultEventsPerDay,
	}
}

// SetEventsPerDay sets how many events fill one simulated day (n > 0), so
// a run of n events spans exactly one day. It returns g for chaining.
func (g *Generator) SetEventsPerDay(n int) *Generator {
	if n > 0 {
		g.perDay = int64(n)
	}
	return g
}

// NDJSON returns n events of a fresh generator seeded with seed, one JSON
// object per line, spread over one day.
func NDJSON(seed int64, n int) []byte {
	g := New(seed).SetEventsPerDay(n)
	return g.AppendNDJSON(make([]byte, 0, n*400), n)
}

// AppendNDJSON appends the next n events to dst as NDJSON (each line ends
// with '\n') and returns the extended buffer.
func (g *Generator) AppendNDJSON(dst []byte, n int) []byte {
	var e event
	for range n {
		dst = g.appendEvent(dst, &e)
		dst = append(dst, '\n')
	}
	return dst
}

// appendEvent draws the next event and writes it in the generator's shape.
func (g *Generator) appendEvent(dst []byte, e *event) []byte {
	g.next(e)
	if g.x == nil {
		return e.appendJSON(dst, g.t)
	}
	dst = e.appendFields(dst, g.t, false)
	return append(g.appendExtras(dst, e), '}')
}

// Event returns the next event as the map its NDJSON line decodes to
// (integers as int64, geo as a nested map), for tests that need values
// rather than bytes. It advances the generator exactly like one event of
// AppendNDJSON.
func (g *Generator) Event() map[string]any {
	var e event
	if g.x != nil {
		return decodeLine(g.appendEvent(nil, &e))
	}
	g.next(&e)
	return e.toMap(g.t)
}

// event is one drawn request, as indexes into the shared tables.
type event struct {
	time      int64 // ns since the epoch, µs precision
	uri       int
	method    int
	status    int
	duration  float64 // ms, rounded to µs
	size      int64
	ua        int
	country   int // -1: no geo object
	city      int // -1: geo without a city
	dc        int
	tls       bool
	idHi, idL uint64
}

// next draws the following event. The order of draws is part of the
// generator's contract (determinism per seed): change it and every
// recorded benchmark answer changes.
func (g *Generator) next(e *event) {
	r, t := g.r, g.t
	e.time = g.nextTime()
	e.uri = int(g.zipf.Uint64())
	kind := t.uris[e.uri].kind
	if kind == kindAPI {
		e.method = t.methodAPI.pick(r)
	} else {
		e.method = t.methodStatic.pick(r)
	}
	e.status = g.status(kind, e.method)
	e.duration = g.duration(kind, e.status)
	e.size = g.size(kind, e.method, e.status)
	e.ua = t.ua.pick(r)
	e.country, e.city = -1, -1
	if r.Float64() >= 0.03 {
		e.country = t.country.pick(r)
		if r.Float64() >= 0.02 {
			e.city = t.city[e.country].pick(r)
		}
	}
	e.dc = g.datacenter(e.country)
	e.tls = r.Float64() < 0.85
	e.idHi, e.idL = r.Uint64(), r.Uint64()
}

// nextTime places event k in stratum k of the day (so events come in
// order) under the diurnal curve, then backfills a few of them.
func (g *Generator) nextTime() int64 {
	k := g.n
	g.n++
	u := (float64(k%g.perDay) + g.r.Float64()) / float64(g.perDay)
	t := Day0.UnixNano() + (k/g.perDay)*dayNs + int64(dayFraction(u)*float64(dayNs))
	if g.r.Float64() < backfillShare {
		t -= int64(g.r.ExpFloat64() * float64(backfillMean))
		t = max(t, Day0.UnixNano())
	}
	return t / 1000 * 1000
}

// status draws a status code, then lets the request shape it: creates
// answer 201, deletes 204, cached assets 304.
func (g *Generator) status(kind, method int) int {
	r := g.r
	s := g.t.status.pick(r)
	if statusCodes[s] != 200 {
		return s
	}
	switch x := r.Float64(); {
	case methodNames[method] == "POST" && x < 0.45:
		return statusIndex201
	case methodNames[method] == "DELETE" && x < 0.6,
		(methodNames[method] == "PUT" || methodNames[method] == "PATCH") && x < 0.15:
		return statusIndex204
	case kind == kindAsset && x < 0.25:
		return statusIndex304
	}
	return s
}

// duration is log-normal per kind of resource; server errors are slow.
func (g *Generator) duration(kind, status int) float64 {
	mu, sigma := math.Log(25), 1.0
	switch kind {
	case kindPage:
		mu, sigma = math.Log(40), 0.9
	case kindAsset:
		mu, sigma = math.Log(3), 1.2
	}
	d := math.Exp(mu + sigma*g.r.NormFloat64())
	if code := statusCodes[status]; code >= 500 {
		d *= 4
	} else if code == 304 {
		d /= 2
	}
	return max(math.Round(d*1000)/1000, 0.001)
}

// size is the response body size: empty for HEAD and bodiless statuses,
// small for errors, log-normal per kind of resource otherwise.
func (g *Generator) size(kind, method, status int) int64 {
	code := statusCodes[status]
	if methodNames[method] == "HEAD" || code == 204 || code == 304 {
		return 0
	}
	mu, sigma := math.Log(1800), 1.2
	switch {
	case code >= 300:
		mu, sigma = math.Log(150), 0.5
	case kind == kindPage:
		mu, sigma = math.Log(24000), 0.6
	case kind == kindAsset:
		mu, sigma = math.Log(45000), 1.3
	}
	return int64(math.Exp(mu + sigma*g.r.NormFloat64()))
}

// datacenter serves most requests from the client's region.
func (g *Generator) datacenter(country int) int {
	if country < 0 || g.r.Float64() < 0.15 {
		return g.r.IntN(len(datacenters))
	}
	dcs := g.t.regionDCs[countries[country].region]
	return dcs[g.r.IntN(len(dcs))]
}

// tables holds the pickers and pre-quoted JSON strings every generator
// shares; they are read-only after sharedTables builds them.
type tables struct {
	uris         []uri
	uriJSON      []string
	methodAPI    *picker
	methodStatic *picker
	status       *picker
	ua           *picker
	uaJSON       []string
	country      *picker
	countryJSON  []string
	city         []*picker
	cityJSON     [][]string
	regionDCs    [][]int
	methodJSON   []string
	dcJSON       []string
}

var (
	tablesOnce sync.Once
	tablesVal  *tables
	// Indexes of the statuses status() rewrites a 200 into.
	statusIndex201, statusIndex204, statusIndex304 = indexOf(201), indexOf(204), indexOf(304)
)

func indexOf(code int) int {
	for i, c := range statusCodes {
		if c == code {
			return i
		}
	}
	panic("gen: status code missing from statusCodes")
}

func sharedTables() *tables {
	tablesOnce.Do(func() { tablesVal = buildTables() })
	return tablesVal
}

func buildTables() *tables {
	t := &tables{uris: uris()}
	for _, u := range t.uris {
		t.uriJSON = append(t.uriJSON, quote(u.path))
	}
	t.methodAPI, t.methodStatic = newPicker(methodsAPI), newPicker(methodsStatic)
	t.status = newPicker(statusWeights)
	w := make([]float64, len(userAgents))
	for i, u := range userAgents {
		w[i] = u.weight
		t.uaJSON = append(t.uaJSON, quote(u.ua))
	}
	t.ua = newPicker(w)
	t.country = newPicker(zipfWeights(len(countries), 1.0))
	for _, c := range countries {
		t.countryJSON = append(t.countryJSON, quote(c.name))
		t.city = append(t.city, newPicker(zipfWeights(len(c.cities), 0.8)))
		var cj []string
		for _, name := range c.cities {
			cj = append(cj, quote(name))
		}
		t.cityJSON = append(t.cityJSON, cj)
	}
	t.regionDCs = make([][]int, regionAF+1)
	for i, dc := range datacenters {
		t.regionDCs[dc.region] = append(t.regionDCs[dc.region], i)
		t.dcJSON = append(t.dcJSON, quote(dc.code))
	}
	// Africa has no datacenter of its own; Europe serves it.
	t.regionDCs[regionAF] = t.regionDCs[regionEU]
	for _, m := range methodNames {
		t.methodJSON = append(t.methodJSON, quote(m))
	}
	return t
}
