package gen

import (
	"math"
	"math/rand/v2"
	"strconv"
	"sync"
	"time"
)

// DefaultTracesPerDay is how many traces a NewTraces generator spreads
// over one simulated day (about 6 spans each on average).
const DefaultTracesPerDay = 200_000

// Traces produces OpenTelemetry spans shaped like Axiom's
// otel-demo-traces dataset (shared/spec/apl.md §4.2): whole traces of the
// demo shop's flows, spans of a trace in start order, traces spread over
// the day like the access logs. The same seed yields the same spans,
// however the output is chunked. Not safe for concurrent use.
type Traces struct {
	r       *rand.Rand
	flow    *picker
	n       int64 // traces started
	perDay  int64
	pending []Span
	next    int
}

// Span is one generated span with typed values (Duration is a real
// time.Duration, for callers that build rows with a timespan column).
type Span struct {
	Start         time.Time
	TraceID       string // 32 hex digits
	SpanID        string // 16 hex digits
	ParentSpanID  string // "" for root spans
	Name          string
	Kind          string // server, client, internal, producer or consumer
	Duration      time.Duration
	Error         bool
	StatusCode    string // "", "OK" or "ERROR"
	StatusMessage string
	Service       string
	HTTPMethod    string
	HTTPRoute     string
	HTTPStatus    int // 0 when not an HTTP server span
	DBSystem      string
	PaymentAmount float64 // > 0 on payment Charge server spans
	NodeName      string  // resource.k8s.node.name
	Events        int     // number of span events (exceptions and logs)
}

// ServiceNamespace is the service.namespace of every span.
const ServiceNamespace = "opentelemetry-demo"

var k8sNodes = []string{"gke-otel-demo-default-pool-7b1c2f3a-8xkq", "gke-otel-demo-default-pool-7b1c2f3a-m2vd",
	"gke-otel-demo-default-pool-7b1c2f3a-t9wz", "gke-otel-demo-default-pool-7b1c2f3a-zq41"}

var (
	flowOnce    sync.Once
	flowPicker  *picker
	flowWrapped []*node // each flow root behind a loadgenerator client span, or nil
)

// NewTraces returns a span generator seeded with seed.
func NewTraces(seed int64) *Traces {
	flowOnce.Do(buildFlows)
	return &Traces{
		r:      rand.New(rand.NewPCG(uint64(seed), 0x7472616365730000^uint64(seed))),
		flow:   flowPicker,
		perDay: DefaultTracesPerDay,
	}
}

func buildFlows() {
	w := make([]float64, len(flows))
	flowWrapped = make([]*node, len(flows))
	for i, f := range flows {
		w[i] = f.weight
		if f.root.svc == svcProxy {
			method := f.root.method
			flowWrapped[i] = &node{svc: svcLoadgen, name: method, kind: "client", selfMs: 0.3, method: method, kids: []*node{f.root}}
		}
	}
	flowPicker = newPicker(w)
}

// SetTracesPerDay sets how many traces fill one simulated day (n > 0).
func (g *Traces) SetTracesPerDay(n int) *Traces {
	if n > 0 {
		g.perDay = int64(n)
	}
	return g
}

// TracesNDJSON returns n spans of a fresh generator seeded with seed, at
// the default DefaultTracesPerDay rate.
func TracesNDJSON(seed int64, n int) []byte {
	return NewTraces(seed).AppendNDJSON(make([]byte, 0, n*600), n)
}

// NextSpan returns the next span.
func (g *Traces) NextSpan() Span {
	if g.next == len(g.pending) {
		g.pending, g.next = g.trace(g.pending[:0]), 0
	}
	g.next++
	return g.pending[g.next-1]
}

// AppendNDJSON appends the next n spans to dst, one JSON object a line.
// duration is written as a Go duration string ("1.234567ms"), the way
// query results render timespans; nested objects (status, service,
// attributes, resource) flatten to the dataset's dotted field names.
func (g *Traces) AppendNDJSON(dst []byte, n int) []byte {
	for range n {
		s := g.NextSpan()
		dst = s.appendJSON(dst)
		dst = append(dst, '\n')
	}
	return dst
}

// Event returns the next span as the map its NDJSON line decodes to.
func (g *Traces) Event() map[string]any {
	s := g.NextSpan()
	return s.toMap()
}

// built is a span under construction, with its parent's index.
type built struct {
	Span
	parent int
	errMsg string
}

// trace generates the spans of one whole trace into dst.
func (g *Traces) trace(dst []Span) []Span {
	r := g.r
	k := g.n
	g.n++
	u := (float64(k%g.perDay) + r.Float64()) / float64(g.perDay)
	start := Day0.UnixNano() + (k/g.perDay)*dayNs + int64(dayFraction(u)*float64(dayNs))
	fi := g.flow.pick(r)
	root := flows[fi].root
	if flowWrapped[fi] != nil && r.Float64() < 0.4 {
		root = flowWrapped[fi]
	}
	var tid [32]byte
	trace := string(appendHex64(appendHex64(tid[:0], r.Uint64()), r.Uint64()))
	var spans []built
	g.build(&spans, root, -1, start, trace)
	g.fail(spans)
	for i := range spans {
		s := &spans[i]
		if s.parent >= 0 {
			s.ParentSpanID = spans[s.parent].SpanID
		}
		dst = append(dst, s.Span)
	}
	return dst
}

// build appends the spans of n (and its repeats) starting at start and
// returns when the last of them ends.
func (g *Traces) build(spans *[]built, n *node, parent int, start int64, trace string) int64 {
	count := 1
	if n.repeat > 1 {
		count = 1 + g.r.IntN(n.repeat)
	}
	end := start
	for range count {
		end = g.one(spans, n, parent, end, trace)
	}
	return end
}

// one appends a single span of n and its children, run one after another.
func (g *Traces) one(spans *[]built, n *node, parent int, start int64, trace string) int64 {
	r := g.r
	var sid [16]byte
	s := built{parent: parent, errMsg: n.errMsg}
	s.Start = time.Unix(0, start).UTC()
	s.TraceID = trace
	s.SpanID = string(appendHex64(sid[:0], r.Uint64()))
	s.Name, s.Kind, s.Service = n.name, n.kind, traceServices[n.svc]
	s.HTTPMethod, s.HTTPRoute, s.DBSystem = n.method, n.route, n.db
	if n.route != "" && n.kind == "server" {
		s.HTTPStatus = 200
	}
	if n.svc == svcFrontend && n.kind == "server" {
		s.StatusCode = "OK"
	}
	if n.name == "oteldemo.PaymentService/Charge" && n.kind == "server" {
		s.PaymentAmount = math.Round(math.Exp(4+0.8*r.NormFloat64())*100) / 100
	}
	s.NodeName = k8sNodes[n.svc%len(k8sNodes)]
	if r.IntN(3000) == 0 {
		s.Events = 50 + r.IntN(351) // a chatty span: up to ~400 log events
	}
	idx := len(*spans)
	*spans = append(*spans, s)
	cursor := start + g.gap()
	for _, kid := range n.kids {
		cursor = g.build(spans, kid, idx, cursor, trace) + g.gap()
	}
	self := int64(math.Exp(math.Log(n.selfMs)+0.6*r.NormFloat64()) * float64(time.Millisecond))
	end := cursor + self
	(*spans)[idx].Duration = time.Duration(end - start)
	return end
}

// gap is the time between a span's start and its first child, or between
// siblings (network and scheduling), 20µs to a few hundred.
func (g *Traces) gap() int64 {
	return int64(math.Exp(math.Log(60e3) + 0.7*g.r.NormFloat64()))
}

// fail makes about 3% of traces fail: one span that can fail does, with
// its message and an exception event, and its ancestors are marked too.
func (g *Traces) fail(spans []built) {
	if g.r.Float64() >= 0.03 {
		return
	}
	var can []int
	for i := range spans {
		if spans[i].errMsg != "" {
			can = append(can, i)
		}
	}
	if len(can) == 0 {
		return
	}
	i := can[g.r.IntN(len(can))]
	spans[i].StatusMessage = spans[i].errMsg
	spans[i].Events++
	for ; i >= 0; i = spans[i].parent {
		s := &spans[i]
		s.Error, s.StatusCode = true, "ERROR"
		if s.HTTPStatus != 0 {
			s.HTTPStatus = 500
		}
	}
}

// appendJSON writes s as one JSON object.
func (s *Span) appendJSON(dst []byte) []byte {
	dst = append(dst, `{"_time":"`...)
	dst = s.Start.AppendFormat(dst, time.RFC3339Nano)
	dst = append(dst, `","trace_id":"`...)
	dst = append(dst, s.TraceID...)
	dst = append(dst, `","span_id":"`...)
	dst = append(dst, s.SpanID...)
	if s.ParentSpanID != "" {
		dst = append(dst, `","parent_span_id":"`...)
		dst = append(dst, s.ParentSpanID...)
	}
	dst = append(dst, `","name":`...)
	dst = append(dst, quote(s.Name)...)
	dst = append(dst, `,"kind":"`...)
	dst = append(dst, s.Kind...)
	dst = append(dst, `","duration":"`...)
	dst = append(dst, s.Duration.String()...)
	dst = append(dst, `","error":`...)
	dst = strconv.AppendBool(dst, s.Error)
	if s.StatusCode != "" {
		dst = append(dst, `,"status":{"code":"`...)
		dst = append(dst, s.StatusCode...)
		dst = append(dst, '"')
		if s.StatusMessage != "" {
			dst = append(dst, `,"message":`...)
			dst = append(dst, quote(s.StatusMessage)...)
		}
		dst = append(dst, '}')
	}
	dst = append(dst, `,"service":{"name":"`...)
	dst = append(dst, s.Service...)
	dst = append(dst, `","namespace":"`+ServiceNamespace+`"}`...)
	dst = s.appendAttributes(dst)
	dst = append(dst, `,"resource":{"k8s":{"node":{"name":"`...)
	dst = append(dst, s.NodeName...)
	dst = append(dst, `"}}}`...)
	if s.Events > 0 {
		dst = append(dst, `,"events":[`...)
		for i := range s.Events {
			if i > 0 {
				dst = append(dst, ',')
			}
			dst = s.appendEvent(dst, i)
		}
		dst = append(dst, ']')
	}
	return append(dst, '}')
}

// appendAttributes writes the attributes object (always present: every
// span has at least its protocol attributes).
func (s *Span) appendAttributes(dst []byte) []byte {
	dst = append(dst, `,"attributes":{`...)
	if s.HTTPMethod != "" {
		dst = append(dst, `"http":{"method":"`...)
		dst = append(dst, s.HTTPMethod...)
		dst = append(dst, '"')
		if s.HTTPRoute != "" {
			dst = append(dst, `,"route":`...)
			dst = append(dst, quote(s.HTTPRoute)...)
		}
		if s.HTTPStatus != 0 {
			dst = append(dst, `,"status_code":`...)
			dst = strconv.AppendInt(dst, int64(s.HTTPStatus), 10)
		}
		dst = append(dst, `},"custom":{"http.protocol":"HTTP/1.1"`...)
		if s.PaymentAmount > 0 {
			dst = append(dst, `,"app.payment.amount":`...)
			dst = appendFloat(dst, s.PaymentAmount)
		}
		return append(dst, `}}`...)
	}
	if s.DBSystem != "" {
		dst = append(dst, `"db":{"system":{"name":"`...)
		dst = append(dst, s.DBSystem...)
		return append(dst, `"}}}`...)
	}
	dst = append(dst, `"rpc":{"system":"grpc"}`...)
	if s.PaymentAmount > 0 {
		dst = append(dst, `,"custom":{"app.payment.amount":`...)
		dst = appendFloat(dst, s.PaymentAmount)
		dst = append(dst, '}')
	}
	return append(dst, '}')
}

// eventTime places event i inside the span.
func (s *Span) eventTime(i int) time.Time {
	return s.Start.Add(s.Duration * time.Duration(i+1) / time.Duration(s.Events+1))
}

// appendEvent writes event i: the exception of a failing span comes last.
func (s *Span) appendEvent(dst []byte, i int) []byte {
	name, msg := "log", "processing step "+strconv.Itoa(i)
	if s.StatusMessage != "" && i == s.Events-1 {
		name, msg = "exception", s.StatusMessage
	}
	dst = append(dst, `{"name":"`...)
	dst = append(dst, name...)
	dst = append(dst, `","timestamp":"`...)
	dst = s.eventTime(i).AppendFormat(dst, time.RFC3339Nano)
	dst = append(dst, `","attributes":{"message":`...)
	dst = append(dst, quote(msg)...)
	return append(dst, `}}`...)
}

// toMap is the value form of appendJSON's output.
func (s *Span) toMap() map[string]any {
	m := map[string]any{
		"_time": s.Start.Format(time.RFC3339Nano), "trace_id": s.TraceID, "span_id": s.SpanID,
		"name": s.Name, "kind": s.Kind, "duration": s.Duration.String(), "error": s.Error,
		"service":  map[string]any{"name": s.Service, "namespace": ServiceNamespace},
		"resource": map[string]any{"k8s": map[string]any{"node": map[string]any{"name": s.NodeName}}},
	}
	if s.ParentSpanID != "" {
		m["parent_span_id"] = s.ParentSpanID
	}
	if s.StatusCode != "" {
		st := map[string]any{"code": s.StatusCode}
		if s.StatusMessage != "" {
			st["message"] = s.StatusMessage
		}
		m["status"] = st
	}
	attrs := map[string]any{}
	switch {
	case s.HTTPMethod != "":
		h := map[string]any{"method": s.HTTPMethod}
		if s.HTTPRoute != "" {
			h["route"] = s.HTTPRoute
		}
		if s.HTTPStatus != 0 {
			h["status_code"] = int64(s.HTTPStatus)
		}
		attrs["http"] = h
		custom := map[string]any{"http.protocol": "HTTP/1.1"}
		if s.PaymentAmount > 0 {
			custom["app.payment.amount"] = s.PaymentAmount
		}
		attrs["custom"] = custom
	case s.DBSystem != "":
		attrs["db"] = map[string]any{"system": map[string]any{"name": s.DBSystem}}
	default:
		attrs["rpc"] = map[string]any{"system": "grpc"}
		if s.PaymentAmount > 0 {
			attrs["custom"] = map[string]any{"app.payment.amount": s.PaymentAmount}
		}
	}
	m["attributes"] = attrs
	if s.Events > 0 {
		evs := make([]any, s.Events)
		for i := range evs {
			name, msg := "log", "processing step "+strconv.Itoa(i)
			if s.StatusMessage != "" && i == s.Events-1 {
				name, msg = "exception", s.StatusMessage
			}
			evs[i] = map[string]any{"name": name, "timestamp": s.eventTime(i).Format(time.RFC3339Nano),
				"attributes": map[string]any{"message": msg}}
		}
		m["events"] = evs
	}
	return m
}
