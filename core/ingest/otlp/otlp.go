// Package otlp decodes OpenTelemetry export bodies (OTLP/HTTP, protobuf
// or JSON) into rows: spans and log records are flattened into events like
// any ingested JSON (the otel-demo-traces shape of apl.md §4.2), their
// attributes outside the semantic conventions in the attributes.custom
// map field as Axiom's (semconv.go), and each metric data point is one
// event (docs/OTLP.md). It sits beside the JSON,
// NDJSON and CSV decoders of package ingest so that every body reaches the
// storage through db's one ingest path.
//
// The export requests are decoded as TracesData, LogsData and MetricsData:
// their wire and JSON forms are identical to the Export*ServiceRequest
// messages (one repeated field, number 1), and the collector packages
// would pull gRPC into the build.
package otlp

import (
	"encoding/hex"
	"fmt"
	"strings"
	"time"

	commonpb "go.opentelemetry.io/proto/otlp/common/v1"
	logspb "go.opentelemetry.io/proto/otlp/logs/v1"
	metricspb "go.opentelemetry.io/proto/otlp/metrics/v1"
	resourcepb "go.opentelemetry.io/proto/otlp/resource/v1"
	tracepb "go.opentelemetry.io/proto/otlp/trace/v1"
	"google.golang.org/protobuf/encoding/protojson"
	"google.golang.org/protobuf/proto"

	"github.com/aplite/aplite/core/store"
	"github.com/aplite/aplite/vector"
)

// Signal is the kind of telemetry an export body carries.
type Signal int

// The OTLP signals, one per OTLP/HTTP route.
const (
	Logs Signal = iota
	Traces
	Metrics
)

// Decode reads an export body of signal sig, protobuf or (isJSON) its JSON
// form, into b: one event per log record, span or metric data point, each
// stamped with now as its ingest time. A body that does not parse is an
// error and adds nothing to b.
func Decode(body []byte, sig Signal, isJSON bool, now int64, b *store.RowsBuilder) error {
	var m proto.Message
	switch sig {
	case Logs:
		m = new(logspb.LogsData)
	case Traces:
		m = new(tracepb.TracesData)
	case Metrics:
		m = new(metricspb.MetricsData)
	default:
		return fmt.Errorf("unknown OTLP signal %d", int(sig))
	}
	var err error
	if isJSON {
		err = protojson.UnmarshalOptions{DiscardUnknown: true}.Unmarshal(body, m)
	} else {
		err = proto.Unmarshal(body, m)
	}
	if err != nil {
		return err
	}
	switch m := m.(type) {
	case *logspb.LogsData:
		if isJSON {
			fixLogIDs(m)
		}
		addLogs(m, now, b)
	case *tracepb.TracesData:
		if isJSON {
			fixSpanIDs(m)
		}
		addSpans(m, now, b)
	case *metricspb.MetricsData:
		addMetrics(m, now, b)
	}
	return nil
}

func addSpans(td *tracepb.TracesData, now int64, b *store.RowsBuilder) {
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
}

func addLogs(ld *logspb.LogsData, now int64, b *store.RowsBuilder) {
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
	setAttributes(b, sp.Attributes)
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
	setAttributes(b, lr.Attributes)
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
