package server

import (
	"testing"

	commonpb "go.opentelemetry.io/proto/otlp/common/v1"
	metricspb "go.opentelemetry.io/proto/otlp/metrics/v1"
	resourcepb "go.opentelemetry.io/proto/otlp/resource/v1"
	"google.golang.org/protobuf/encoding/protojson"
	"google.golang.org/protobuf/proto"
)

func sampleMetrics() *metricspb.MetricsData {
	t0 := uint64(1_700_000_000_000_000_000)
	host := []*commonpb.KeyValue{{Key: "host", Value: &commonpb.AnyValue{Value: &commonpb.AnyValue_StringValue{StringValue: "web-1"}}}}
	f := func(x float64) *float64 { return &x }
	return &metricspb.MetricsData{ResourceMetrics: []*metricspb.ResourceMetrics{{
		Resource: &resourcepb.Resource{Attributes: []*commonpb.KeyValue{{Key: "service.name", Value: &commonpb.AnyValue{Value: &commonpb.AnyValue_StringValue{StringValue: "api"}}}}},
		ScopeMetrics: []*metricspb.ScopeMetrics{{Metrics: []*metricspb.Metric{
			{Name: "queue.depth", Unit: "1", Data: &metricspb.Metric_Gauge{Gauge: &metricspb.Gauge{DataPoints: []*metricspb.NumberDataPoint{
				{TimeUnixNano: t0, Attributes: host, Value: &metricspb.NumberDataPoint_AsInt{AsInt: 7}},
				{TimeUnixNano: t0 + 60e9, Attributes: host, Value: &metricspb.NumberDataPoint_AsInt{AsInt: 9}}}}}},
			{Name: "http.requests", Data: &metricspb.Metric_Sum{Sum: &metricspb.Sum{IsMonotonic: true,
				AggregationTemporality: metricspb.AggregationTemporality_AGGREGATION_TEMPORALITY_CUMULATIVE,
				DataPoints: []*metricspb.NumberDataPoint{{StartTimeUnixNano: t0 - 60e9, TimeUnixNano: t0, Attributes: host,
					Value: &metricspb.NumberDataPoint_AsDouble{AsDouble: 1234.5}}}}}},
			{Name: "http.duration", Unit: "ms", Data: &metricspb.Metric_Histogram{Histogram: &metricspb.Histogram{
				AggregationTemporality: metricspb.AggregationTemporality_AGGREGATION_TEMPORALITY_DELTA,
				DataPoints: []*metricspb.HistogramDataPoint{{TimeUnixNano: t0, Count: 10, Sum: f(250), Min: f(3), Max: f(90),
					BucketCounts: []uint64{2, 5, 3}, ExplicitBounds: []float64{10, 50}}}}}},
			{Name: "rpc.latency", Data: &metricspb.Metric_ExponentialHistogram{ExponentialHistogram: &metricspb.ExponentialHistogram{
				DataPoints: []*metricspb.ExponentialHistogramDataPoint{{TimeUnixNano: t0, Count: 4, Scale: 2, ZeroCount: 1,
					Positive: &metricspb.ExponentialHistogramDataPoint_Buckets{Offset: 3, BucketCounts: []uint64{1, 2}}}}}}},
			{Name: "gc.pause", Data: &metricspb.Metric_Summary{Summary: &metricspb.Summary{DataPoints: []*metricspb.SummaryDataPoint{
				{TimeUnixNano: t0, Count: 3, Sum: 12, QuantileValues: []*metricspb.SummaryDataPoint_ValueAtQuantile{{Quantile: 0.5, Value: 4}}}}}}},
		}}},
	}}}
}

// Gauges, sums, histograms, exponential histograms and summaries, sent as
// protobuf and as JSON, become one event per data point that APL charts.
func TestOTLPMetrics(t *testing.T) {
	ts := newTestServer(t)
	ts.createDataset("metrics")
	hdr := map[string]string{"X-Axiom-Dataset": "metrics"}
	pb, _ := proto.Marshal(sampleMetrics())
	r := ts.do(req{method: "POST", path: "/v1/metrics", body: pb, contentType: "application/x-protobuf", encoding: "gzip", headers: hdr})
	if r.status != 200 {
		t.Fatalf("protobuf export: %d %s", r.status, r.body)
	}
	js, _ := protojson.Marshal(sampleMetrics())
	ts.must(req{method: "POST", path: "/v1/metrics", body: js, contentType: "application/json", headers: hdr}, 200)
	var res tabular
	ts.must(req{method: "POST", path: "/v1/datasets/_apl?format=tabular", body: map[string]any{"apl": `['metrics']
		| summarize n = count(), v = max(value), c = max(['count']) by ['metric.name'], ['metric.type']
		| order by ['metric.name'] asc`, "startTime": "2023-01-01T00:00:00Z", "endTime": "2024-01-01T00:00:00Z"}}, 200).json(t, &res)
	tb := res.Tables[0]
	got := map[string][]any{}
	for i := range tb.Columns[0] {
		got[tb.Columns[0][i].(string)] = []any{tb.Columns[1][i], tb.Columns[2][i], tb.Columns[3][i], tb.Columns[4][i]}
	}
	want := map[string][]any{
		"gc.pause":      {"summary", float64(2), nil, float64(3)},
		"http.duration": {"histogram", float64(2), nil, float64(10)},
		"http.requests": {"sum", float64(2), 1234.5, nil},
		"queue.depth":   {"gauge", float64(4), float64(9), nil},
		"rpc.latency":   {"exponential_histogram", float64(2), nil, float64(4)},
	}
	for name, w := range want {
		g := got[name]
		for i := range w {
			if g == nil || g[i] != w[i] {
				t.Errorf("%s: %v, want %v", name, g, w)
				break
			}
		}
	}
	var hist tabular
	ts.must(req{method: "POST", path: "/v1/datasets/_apl?format=tabular", body: map[string]any{"apl": `['metrics']
		| where ['metric.name'] == "http.duration" | take 1
		| project bucket_counts, explicit_bounds, temporality, ['attributes.host'], ['service.name'], ['metric.unit']`,
		"startTime": "2023-01-01T00:00:00Z", "endTime": "2024-01-01T00:00:00Z"}}, 200).json(t, &hist)
	hb := hist.Tables[0].Columns
	if len(hb) != 6 || len(hb[0]) != 1 || len(hb[0][0].([]any)) != 3 || hb[2][0] != "delta" || hb[4][0] != "api" || hb[5][0] != "ms" {
		t.Errorf("histogram point: %v", hb)
	}
}
