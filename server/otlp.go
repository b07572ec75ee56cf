package server

import (
	"encoding/hex"
	"net/http"
	"strings"
	"time"

	commonpb "go.opentelemetry.io/proto/otlp/common/v1"
	logspb "go.opentelemetry.io/proto/otlp/logs/v1"
	resourcepb "go.opentelemetry.io/proto/otlp/resource/v1"
	tracepb "go.opentelemetry.io/proto/otlp/trace/v1"
	"google.golang.org/protobuf/encoding/protojson"
	"google.golang.org/protobuf/proto"

	"github.com/aplite/aplite/core/store"
	"github.com/aplite/aplite/vector"
)

// OTLP/HTTP: spans and log records are flattened into events like any
// ingested JSON (the otel-demo-traces shape of apl.md §4.2) and appended
// to the dataset named by the X-Axiom-Dataset header.
//
// The export requests are decoded as TracesData / LogsData: their wire
// and JSON forms are identical to ExportTraceServiceRequest and
// ExportLogsServiceRequest (one repeated field, number 1), and the
// collector packages would pull gRPC into the build.

// otlpKind tells how the body is encoded.
func otlpIsJSON(c *call) (bool, error) {
	ct := strings.ToLower(string(c.Request.Header.ContentType()))
	mt, _, _ := strings.Cut(ct, ";")
	switch strings.TrimSpace(mt) {
	case "application/x-protobuf", "application/protobuf", "":
		return false, nil
	case "application/json":
		return true, nil
	}
	return false, errorf(http.StatusUnsupportedMediaType, "unsupported content type %q: use application/x-protobuf or application/json", ct)
}

// otlpTarget resolves and authorizes the dataset of an OTLP request.
func (s *Server) otlpTarget(c *call) (*store.Dataset, error) {
	name := strings.TrimSpace(string(c.Request.Header.Peek("X-Axiom-Dataset")))
	if name == "" {
		name = strings.TrimSpace(string(c.Request.Header.Peek("X-Service-Dataset")))
	}
	if name == "" {
		return nil, badRequest("missing X-Axiom-Dataset header: name the dataset to write to")
	}
	if err := c.p.requireDataset(name, capIngest, actCreate, "ingest into"); err != nil {
		return nil, err
	}
	if err := s.checkLimit(c.p.org, limitIngest); err != nil {
		return nil, err
	}
	ds, err := c.datasets().Get(name)
	if err != nil {
		return nil, notFound("dataset %q not found", name)
	}
	return ds, nil
}

// otlpDecode reads the body into m.
func (s *Server) otlpDecode(c *call, m proto.Message) (bool, error) {
	isJSON, err := otlpIsJSON(c)
	if err != nil {
		return false, err
	}
	body, err := s.requestBody(c.RequestCtx)
	if err != nil {
		return false, err
	}
	if isJSON {
		err = protojson.UnmarshalOptions{DiscardUnknown: true}.Unmarshal(body, m)
	} else {
		err = proto.Unmarshal(body, m)
	}
	if err != nil {
		return false, badRequest("invalid OTLP body: %v", err)
	}
	return isJSON, nil
}

// otlpRespond answers an export with an empty response message in the
// request's encoding, as OTLP/HTTP requires.
func otlpRespond(c *call, isJSON bool) error {
	c.SetStatusCode(http.StatusOK)
	if isJSON {
		c.SetContentType(contentTypeJSON)
		c.SetBodyString("{}")
	} else {
		c.SetContentType("application/x-protobuf")
		c.Response.ResetBody()
	}
	return nil
}

func (s *Server) handleOTLPTraces(c *call) error {
	ds, err := s.otlpTarget(c)
	if err != nil {
		return err
	}
	var td tracepb.TracesData
	isJSON, err := s.otlpDecode(c, &td)
	if err != nil {
		return err
	}
	now := time.Now().UnixNano()
	b := store.NewRowsBuilder()
	for _, rs := range td.ResourceSpans {
		for _, ss := range rs.ScopeSpans {
			for _, sp := range ss.Spans {
				b.Begin()
				setResource(b, rs.Resource)
				setScope(b, ss.Scope)
				setSpan(b, sp)
				b.End(now)
			}
		}
	}
	if err := s.appendOTLP(ds, b, now); err != nil {
		return err
	}
	return otlpRespond(c, isJSON)
}

func (s *Server) handleOTLPLogs(c *call) error {
	ds, err := s.otlpTarget(c)
	if err != nil {
		return err
	}
	var ld logspb.LogsData
	isJSON, err := s.otlpDecode(c, &ld)
	if err != nil {
		return err
	}
	now := time.Now().UnixNano()
	b := store.NewRowsBuilder()
	for _, rl := range ld.ResourceLogs {
		for _, sl := range rl.ScopeLogs {
			for _, lr := range sl.LogRecords {
				b.Begin()
				setResource(b, rl.Resource)
				setScope(b, sl.Scope)
				setLogRecord(b, lr)
				b.End(now)
			}
		}
	}
	if err := s.appendOTLP(ds, b, now); err != nil {
		return err
	}
	return otlpRespond(c, isJSON)
}

func (s *Server) handleOTLPMetrics(c *call) error { return s.handleOTLPMetricsData(c) }

func (s *Server) appendOTLP(ds *store.Dataset, b *store.RowsBuilder, now int64) error {
	rows := b.Finish(now)
	if rows.N == 0 {
		return nil
	}
	if _, err := ds.Append(rows); err != nil {
		return err
	}
	s.metrics.ingestRequests.Add(1)
	s.metrics.ingestEvents.Add(int64(rows.N))
	return nil
}

var spanKinds = map[tracepb.Span_SpanKind]string{
	tracepb.Span_SPAN_KIND_UNSPECIFIED: "unspecified",
	tracepb.Span_SPAN_KIND_INTERNAL:    "internal",
	tracepb.Span_SPAN_KIND_SERVER:      "server",
	tracepb.Span_SPAN_KIND_CLIENT:      "client",
	tracepb.Span_SPAN_KIND_PRODUCER:    "producer",
	tracepb.Span_SPAN_KIND_CONSUMER:    "consumer",
}

func setSpan(b *store.RowsBuilder, sp *tracepb.Span) {
	if sp.StartTimeUnixNano > 0 {
		b.SetTime(int64(sp.StartTimeUnixNano))
	}
	b.SetString("trace_id", hex.EncodeToString(sp.TraceId))
	b.SetString("span_id", hex.EncodeToString(sp.SpanId))
	if len(sp.ParentSpanId) > 0 {
		b.SetString("parent_span_id", hex.EncodeToString(sp.ParentSpanId))
	}
	b.SetString("name", sp.Name)
	b.SetString("kind", spanKinds[sp.Kind])
	if sp.EndTimeUnixNano >= sp.StartTimeUnixNano {
		b.SetIntAt(b.Ref(store.ColKey{Name: "duration", Type: vector.TimeSpan}), int64(sp.EndTimeUnixNano-sp.StartTimeUnixNano))
	}
	if sp.TraceState != "" {
		b.SetString("trace_state", sp.TraceState)
	}
	code := ""
	if st := sp.Status; st != nil {
		switch st.Code {
		case tracepb.Status_STATUS_CODE_OK:
			code = "OK"
		case tracepb.Status_STATUS_CODE_ERROR:
			code = "ERROR"
		}
		if st.Message != "" {
			b.SetString("status.message", st.Message)
		}
	}
	if code != "" {
		b.SetString("status.code", code)
	}
	b.SetBool("error", code == "ERROR")
	setAttributes(b, "attributes.", sp.Attributes)
	if len(sp.Events) > 0 {
		evs := make([]any, len(sp.Events))
		for i, e := range sp.Events {
			evs[i] = map[string]any{"name": e.Name,
				"timestamp":  time.Unix(0, int64(e.TimeUnixNano)).UTC().Format(time.RFC3339Nano),
				"attributes": attrMap(e.Attributes)}
		}
		b.SetDynamic("events", evs)
	}
	if len(sp.Links) > 0 {
		links := make([]any, len(sp.Links))
		for i, l := range sp.Links {
			links[i] = map[string]any{"trace_id": hex.EncodeToString(l.TraceId),
				"span_id": hex.EncodeToString(l.SpanId), "attributes": attrMap(l.Attributes)}
		}
		b.SetDynamic("links", links)
	}
}

func setLogRecord(b *store.RowsBuilder, lr *logspb.LogRecord) {
	switch {
	case lr.TimeUnixNano > 0:
		b.SetTime(int64(lr.TimeUnixNano))
	case lr.ObservedTimeUnixNano > 0:
		b.SetTime(int64(lr.ObservedTimeUnixNano))
	}
	if lr.SeverityText != "" {
		b.SetString("severity_text", lr.SeverityText)
	}
	if lr.SeverityNumber != 0 {
		b.SetInt("severity_number", int64(lr.SeverityNumber))
	}
	if lr.Body != nil {
		setValue(b, "body", lr.Body)
	}
	if len(lr.TraceId) > 0 {
		b.SetString("trace_id", hex.EncodeToString(lr.TraceId))
	}
	if len(lr.SpanId) > 0 {
		b.SetString("span_id", hex.EncodeToString(lr.SpanId))
	}
	if lr.EventName != "" {
		b.SetString("event_name", lr.EventName)
	}
	setAttributes(b, "attributes.", lr.Attributes)
}

// setResource writes resource attributes: service.* at the top level (as
// the OTel demo datasets have them), the rest under "resource.".
func setResource(b *store.RowsBuilder, r *resourcepb.Resource) {
	if r == nil {
		return
	}
	for _, kv := range r.Attributes {
		if strings.HasPrefix(kv.Key, "service.") {
			setValue(b, kv.Key, kv.Value)
		} else {
			setValue(b, "resource."+kv.Key, kv.Value)
		}
	}
}

func setScope(b *store.RowsBuilder, sc *commonpb.InstrumentationScope) {
	if sc == nil {
		return
	}
	if sc.Name != "" {
		b.SetString("scope.name", sc.Name)
	}
	if sc.Version != "" {
		b.SetString("scope.version", sc.Version)
	}
}

func setAttributes(b *store.RowsBuilder, prefix string, kvs []*commonpb.KeyValue) {
	for _, kv := range kvs {
		setValue(b, prefix+kv.Key, kv.Value)
	}
}

// setValue stores one attribute value with its own type; arrays and
// key-value lists stay dynamic.
func setValue(b *store.RowsBuilder, name string, v *commonpb.AnyValue) {
	if v == nil {
		b.SetNull(name)
		return
	}
	switch x := v.Value.(type) {
	case *commonpb.AnyValue_StringValue:
		b.SetString(name, x.StringValue)
	case *commonpb.AnyValue_BoolValue:
		b.SetBool(name, x.BoolValue)
	case *commonpb.AnyValue_IntValue:
		b.SetInt(name, x.IntValue)
	case *commonpb.AnyValue_DoubleValue:
		b.SetFloat(name, x.DoubleValue)
	case *commonpb.AnyValue_BytesValue:
		b.SetString(name, hex.EncodeToString(x.BytesValue))
	case *commonpb.AnyValue_ArrayValue, *commonpb.AnyValue_KvlistValue:
		b.SetDynamic(name, anyValue(v))
	default:
		b.SetNull(name)
	}
}

// anyValue converts an OTLP value into a JSON-like Go value.
func anyValue(v *commonpb.AnyValue) any {
	if v == nil {
		return nil
	}
	switch x := v.Value.(type) {
	case *commonpb.AnyValue_StringValue:
		return x.StringValue
	case *commonpb.AnyValue_BoolValue:
		return x.BoolValue
	case *commonpb.AnyValue_IntValue:
		return x.IntValue
	case *commonpb.AnyValue_DoubleValue:
		return x.DoubleValue
	case *commonpb.AnyValue_BytesValue:
		return hex.EncodeToString(x.BytesValue)
	case *commonpb.AnyValue_ArrayValue:
		out := make([]any, 0, len(x.ArrayValue.GetValues()))
		for _, e := range x.ArrayValue.GetValues() {
			out = append(out, anyValue(e))
		}
		return out
	case *commonpb.AnyValue_KvlistValue:
		return attrMap(x.KvlistValue.GetValues())
	}
	return nil
}

func attrMap(kvs []*commonpb.KeyValue) map[string]any {
	m := make(map[string]any, len(kvs))
	for _, kv := range kvs {
		m[kv.Key] = anyValue(kv.Value)
	}
	return m
}
