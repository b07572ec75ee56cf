package otlp

import (
	commonpb "go.opentelemetry.io/proto/otlp/common/v1"
	metricspb "go.opentelemetry.io/proto/otlp/metrics/v1"

	"github.com/aplite/aplite/core/store"
	"github.com/aplite/aplite/vector"
)

// OTLP metrics: one event per data point, mapped as docs/OTLP.md says.

func addMetrics(md *metricspb.MetricsData, now int64, b *store.RowsBuilder) {
	for _, rm := range md.ResourceMetrics {
		for _, sm := range rm.ScopeMetrics {
			for _, m := range sm.Metrics {
				point := func(attrs func(*store.RowsBuilder), start, at uint64, flags uint32, set func(*store.RowsBuilder)) {
					b.Begin()
					setResource(b, rm.Resource)
					setScope(b, sm.Scope)
					setMetric(b, m)
					if at != 0 {
						b.SetTime(int64(at))
					}
					if start != 0 {
						b.SetIntAt(b.Ref(store.ColKey{Name: "start_time", Type: vector.DateTime}), int64(start))
					}
					if flags != 0 {
						b.SetInt("flags", int64(flags))
					}
					attrs(b)
					set(b)
					b.End(now)
				}
				addMetricPoints(m, point)
			}
		}
	}
}

func setMetric(b *store.RowsBuilder, m *metricspb.Metric) {
	b.SetString("metric.name", m.Name)
	if m.Description != "" {
		b.SetString("metric.description", m.Description)
	}
	if m.Unit != "" {
		b.SetString("metric.unit", m.Unit)
	}
}

var temporalities = map[metricspb.AggregationTemporality]string{
	metricspb.AggregationTemporality_AGGREGATION_TEMPORALITY_DELTA:      "delta",
	metricspb.AggregationTemporality_AGGREGATION_TEMPORALITY_CUMULATIVE: "cumulative",
}

type pointFunc func(attrs func(*store.RowsBuilder), start, at uint64, flags uint32, set func(*store.RowsBuilder))

// addMetricPoints calls point for each data point of m with the setter
// of its kind's fields.
func addMetricPoints(m *metricspb.Metric, point pointFunc) {
	switch d := m.Data.(type) {
	case *metricspb.Metric_Gauge:
		for _, p := range d.Gauge.DataPoints {
			point(attrSetter(p.Attributes), p.StartTimeUnixNano, p.TimeUnixNano, p.Flags, func(b *store.RowsBuilder) {
				b.SetString("metric.type", "gauge")
				setNumber(b, p)
			})
		}
	case *metricspb.Metric_Sum:
		for _, p := range d.Sum.DataPoints {
			point(attrSetter(p.Attributes), p.StartTimeUnixNano, p.TimeUnixNano, p.Flags, func(b *store.RowsBuilder) {
				b.SetString("metric.type", "sum")
				setNumber(b, p)
				b.SetBool("monotonic", d.Sum.IsMonotonic)
				if t, ok := temporalities[d.Sum.AggregationTemporality]; ok {
					b.SetString("temporality", t)
				}
			})
		}
	case *metricspb.Metric_Histogram:
		for _, p := range d.Histogram.DataPoints {
			point(attrSetter(p.Attributes), p.StartTimeUnixNano, p.TimeUnixNano, p.Flags, func(b *store.RowsBuilder) {
				b.SetString("metric.type", "histogram")
				setDistribution(b, p.Count, p.Sum, p.Min, p.Max)
				b.SetDynamic("bucket_counts", uints(p.BucketCounts))
				bounds := make([]any, len(p.ExplicitBounds))
				for i, x := range p.ExplicitBounds {
					bounds[i] = x
				}
				b.SetDynamic("explicit_bounds", bounds)
				if t, ok := temporalities[d.Histogram.AggregationTemporality]; ok {
					b.SetString("temporality", t)
				}
			})
		}
	case *metricspb.Metric_ExponentialHistogram:
		for _, p := range d.ExponentialHistogram.DataPoints {
			point(attrSetter(p.Attributes), p.StartTimeUnixNano, p.TimeUnixNano, p.Flags, func(b *store.RowsBuilder) {
				b.SetString("metric.type", "exponential_histogram")
				setDistribution(b, p.Count, p.Sum, p.Min, p.Max)
				b.SetInt("scale", int64(p.Scale))
				b.SetInt("zero_count", int64(p.ZeroCount))
				b.SetFloat("zero_threshold", p.ZeroThreshold)
				if p.Positive != nil {
					b.SetInt("positive.offset", int64(p.Positive.Offset))
					b.SetDynamic("positive.bucket_counts", uints(p.Positive.BucketCounts))
				}
				if p.Negative != nil {
					b.SetInt("negative.offset", int64(p.Negative.Offset))
					b.SetDynamic("negative.bucket_counts", uints(p.Negative.BucketCounts))
				}
				if t, ok := temporalities[d.ExponentialHistogram.AggregationTemporality]; ok {
					b.SetString("temporality", t)
				}
			})
		}
	case *metricspb.Metric_Summary:
		for _, p := range d.Summary.DataPoints {
			point(attrSetter(p.Attributes), p.StartTimeUnixNano, p.TimeUnixNano, p.Flags, func(b *store.RowsBuilder) {
				b.SetString("metric.type", "summary")
				b.SetInt("count", int64(p.Count))
				b.SetFloat("sum", p.Sum)
				qs := make([]any, len(p.QuantileValues))
				for i, q := range p.QuantileValues {
					qs[i] = map[string]any{"quantile": q.Quantile, "value": q.Value}
				}
				b.SetDynamic("quantile_values", qs)
			})
		}
	}
}

// attrSetter writes a data point's attributes, each its own field: they
// are the metric's dimensions, which a query groups by.
func attrSetter(kvs []*commonpb.KeyValue) func(*store.RowsBuilder) {
	return func(b *store.RowsBuilder) {
		for _, kv := range kvs {
			setValue(b, "attributes."+kv.Key, kv.Value)
		}
	}
}

// setNumber stores a gauge or sum point's value, as a long when it is one.
func setNumber(b *store.RowsBuilder, p *metricspb.NumberDataPoint) {
	switch v := p.Value.(type) {
	case *metricspb.NumberDataPoint_AsInt:
		b.SetInt("value", v.AsInt)
	case *metricspb.NumberDataPoint_AsDouble:
		b.SetFloat("value", v.AsDouble)
	}
}

func uints(xs []uint64) []any {
	out := make([]any, len(xs))
	for i, x := range xs {
		out[i] = int64(x)
	}
	return out
}

// setDistribution sets the count of a histogram point, and its sum, min
// and max where the point has them (both histogram kinds carry these).
func setDistribution(b *store.RowsBuilder, count uint64, sum, lo, hi *float64) {
	b.SetInt("count", int64(count))
	for _, f := range [...]struct {
		name string
		v    *float64
	}{{"sum", sum}, {"min", lo}, {"max", hi}} {
		if f.v != nil {
			b.SetFloat(f.name, *f.v)
		}
	}
}
