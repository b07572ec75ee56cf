package otlp

import (
	"encoding/base64"
	"encoding/hex"

	logspb "go.opentelemetry.io/proto/otlp/logs/v1"
	tracepb "go.opentelemetry.io/proto/otlp/trace/v1"
)

// OTLP/JSON writes trace and span ids as hex strings, not as the base64
// that protojson reads for every bytes field (the OTLP specification's
// "JSON Protobuf Encoding" section), so protojson turns the 32 hex digits
// of a trace id into 24 bytes and the 16 of a span id into 12. A base64
// string decodes without loss into bytes that encode back to the same
// text, so the text is recovered from the bytes and read as hex. An id
// that was sent in base64 (the form some older senders use) already has
// its 16 or 8 bytes and is kept.

// hexID returns id as read from the hex text protojson took for base64,
// or id itself when its length is not that of a misread trace (24 bytes)
// or span id (12 bytes) or its text is not hex.
func hexID(id []byte) []byte {
	if len(id) != 24 && len(id) != 12 {
		return id
	}
	out, err := hex.DecodeString(base64.StdEncoding.EncodeToString(id))
	if err != nil {
		return id
	}
	return out
}

// fixSpanIDs rereads the ids of every span and span link as hex.
func fixSpanIDs(td *tracepb.TracesData) {
	for _, rs := range td.ResourceSpans {
		for _, ss := range rs.ScopeSpans {
			for _, sp := range ss.Spans {
				sp.TraceId, sp.SpanId = hexID(sp.TraceId), hexID(sp.SpanId)
				sp.ParentSpanId = hexID(sp.ParentSpanId)
				for _, l := range sp.Links {
					l.TraceId, l.SpanId = hexID(l.TraceId), hexID(l.SpanId)
				}
			}
		}
	}
}

// fixLogIDs rereads the trace and span ids of every log record as hex.
func fixLogIDs(ld *logspb.LogsData) {
	for _, rl := range ld.ResourceLogs {
		for _, sl := range rl.ScopeLogs {
			for _, lr := range sl.LogRecords {
				lr.TraceId, lr.SpanId = hexID(lr.TraceId), hexID(lr.SpanId)
			}
		}
	}
}
