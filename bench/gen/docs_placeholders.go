package gen

import (
	"encoding/base64"
	"math/rand/v2"
	"strconv"
	"time"
)

// Docs datasets whose names are placeholders. Many pages write their
// example over a dataset named for the role (['dataset'],
// ['dataset.name'], ['myDataset'], ['DATASET_NAME'], …) rather than one
// of the example datasets; each such name gets a dataset here with the
// fields its examples use, so those examples run too.

// placeholderDatasets lists them, with the pages that read each.
func placeholderDatasets() []DocsDataset {
	return []DocsDataset{
		// The datetime function pages, stdev, ipv4_is_in_any_range,
		// indexof_regex and the traces page (span links).
		{Name: "dataset", event: placeholderEvent},
		// array_shift_right, array_sum, isarray, project-reorder.
		{Name: "dataset.name", event: placeholderArrays},
		// The Splunk cheat sheet.
		{Name: "myDataset", event: placeholderSplunk},
		// base64_decode_toarray.
		{Name: "my-dataset", event: placeholderEncoded},
		// The monitor examples: an error rate and a latency by route.
		{Name: "sample_dataset", event: placeholderErrors},
		{Name: "my_traces", Timespans: []string{"duration"}, event: placeholderTraces},
		// The AWS Lambda page counts events by extension version.
		{Name: "DATASET_NAME", event: placeholderLambda},
		// externaldata: access logs looked up by employee.
		{Name: "accessLogs", event: placeholderAccess},
		// parse: a request line, and a pod status line parsed by regex.
		{Name: "HttpRequestLogs", event: placeholderRequestLine},
		{Name: "PodLogs", event: placeholderPodLine},
	}
}

func placeholderEvent(r *rand.Rand, t time.Time) map[string]any {
	start := t.Add(-time.Duration(r.IntN(48*3600)) * time.Second)
	e := map[string]any{
		"_time":      t.Format(time.RFC3339Nano),
		"start_time": start.Format(time.RFC3339Nano),
		"end_time":   t.Format(time.RFC3339Nano),
		// stdev(duration): a number of milliseconds.
		"duration":   round3(r.ExpFloat64() * 120),
		"ip_address": exampleIPv4(r),
		"field":      exampleTexts[r.IntN(len(exampleTexts))],
	}
	// A span's links to spans of other traces; most spans have none.
	links := []any{}
	if r.IntN(4) == 0 {
		links = append(links, map[string]any{"trace_id": hex(r, 32), "span_id": hex(r, 16)})
	}
	e["links"] = links
	return e
}

func placeholderArrays(r *rand.Rand, t time.Time) map[string]any {
	arr := make([]any, r.IntN(6))
	for i := range arr {
		arr[i] = int64(r.IntN(100))
	}
	durs := make([]any, 1+r.IntN(5))
	for i := range durs {
		durs[i] = round3(r.ExpFloat64() * 50)
	}
	// isarray(field): an array in some events, a string in others.
	var field any = exampleWords[r.IntN(len(exampleWords))]
	if r.IntN(2) == 0 {
		field = []any{exampleWords[r.IntN(len(exampleWords))], exampleWords[r.IntN(len(exampleWords))]}
	}
	return map[string]any{
		"_time":          t.Format(time.RFC3339Nano),
		"array":          arr,
		"duration_array": durs,
		"field":          field,
		"FieldA":         exampleWords[r.IntN(len(exampleWords))],
		"FieldB":         int64(r.IntN(1000)),
		"FieldC":         r.IntN(2) == 0,
	}
}

// placeholderSplunk is an access log with the fields the Splunk cheat
// sheet's examples rename and add up (oldName, field1 + field2).
func placeholderSplunk(r *rand.Rand, t time.Time) map[string]any {
	return map[string]any{
		"_time":        t.Format(time.RFC3339Nano),
		"status":       []string{"200", "200", "201", "304", "404", "500"}[r.IntN(6)],
		"method":       []string{"GET", "GET", "POST", "PUT", "DELETE"}[r.IntN(5)],
		"content_type": contentTypes[r.IntN(len(contentTypes))],
		"oldName":      exampleWords[r.IntN(len(exampleWords))],
		"field1":       int64(r.IntN(100)),
		"field2":       round3(r.Float64() * 10),
	}
}

func placeholderEncoded(r *rand.Rand, t time.Time) map[string]any {
	return map[string]any{
		"_time":        t.Format(time.RFC3339Nano),
		"encodedField": base64.StdEncoding.EncodeToString([]byte(exampleWords[r.IntN(len(exampleWords))])),
	}
}

// placeholderErrors is a span with an OTel status code, an error count
// and an error message. The error-rate example averages error, so it is
// a number (1 for a failed span), not the bool of otel-demo-traces.
// error and error.message are both fields, so the message is written
// flattened: a JSON object cannot hold error as a number and as an
// object.
func placeholderErrors(r *rand.Rand, t time.Time) map[string]any {
	failed := r.IntN(10) == 0
	e := map[string]any{
		"_time":       t.Format(time.RFC3339Nano),
		"status.code": "OK",
		"error":       int64(0),
	}
	if failed {
		e["error"] = int64(1)
		e["status.code"] = "ERROR"
		e["error.message"] = []string{"connection refused", "timeout", "upstream unavailable"}[r.IntN(3)]
	}
	return e
}

func placeholderTraces(r *rand.Rand, t time.Time) map[string]any {
	e := map[string]any{
		"_time":    t.Format(time.RFC3339Nano),
		"trace_id": hex(r, 32),
		"span_id":  hex(r, 16),
		"route":    []string{"/api/cart", "/api/checkout", "/api/products", "/"}[r.IntN(4)],
		"duration": (time.Duration(r.ExpFloat64()*50e6) / time.Microsecond * time.Microsecond).String(),
	}
	// A root span has no parent: an empty parent_span_id, as OTel
	// exporters write it.
	e["parent_span_id"] = ""
	if r.IntN(3) > 0 {
		e["parent_span_id"] = hex(r, 16)
	}
	return e
}

func placeholderLambda(r *rand.Rand, t time.Time) map[string]any {
	e := map[string]any{
		"_time":   t.Format(time.RFC3339Nano),
		"message": httpMessages[r.IntN(len(httpMessages))],
	}
	// Only the extension's own events carry its version.
	if r.IntN(3) > 0 {
		e["axiom"] = map[string]any{"awsLambdaExtensionVersion": "v" + strconv.Itoa(9+r.IntN(3))}
	}
	return e
}

func placeholderAccess(r *rand.Rand, t time.Time) map[string]any {
	return map[string]any{
		"_time":      t.Format(time.RFC3339Nano),
		"severity":   []string{"low", "low", "medium", "high"}[r.IntN(4)],
		"employeeID": "E" + strconv.Itoa(1000+r.IntN(50)),
		"resource":   []string{"/hr/payroll", "/wiki", "/admin", "/mail"}[r.IntN(4)],
	}
}

// placeholderRequestLine is a request logged as one line: method, URL,
// status and response time separated by spaces.
func placeholderRequestLine(r *rand.Rand, t time.Time) map[string]any {
	return map[string]any{
		"_time": t.Format(time.RFC3339Nano),
		"log": []string{"GET", "POST", "PUT"}[r.IntN(3)] + " /api/v1/" + exampleWords[r.IntN(4)] + " " +
			[]string{"200", "201", "404", "500"}[r.IntN(4)] + " " + strconv.Itoa(5+r.IntN(500)) + "ms",
	}
}

// placeholderPodLine is a Kubernetes pod status update in the format the
// parse page's regex reads.
func placeholderPodLine(r *rand.Rand, t time.Time) map[string]any {
	node := strconv.Itoa(1 + r.IntN(4))
	return map[string]any{
		"_time": t.Format(time.RFC3339Nano),
		"AppName": "Log: PodStatusUpdate (podName=frontend-" + hex(r, 5) + ", namespace=" +
			[]string{"default", "shop", "kube-system"}[r.IntN(3)] + ", phase=" +
			[]string{"Running", "Pending", "Succeeded", "Failed"}[r.IntN(4)] + ", startTime=" +
			t.Add(-time.Duration(r.IntN(3600))*time.Second).Format("2006-01-02 15:04:05") +
			", nodeName=node-" + node + ", hostIP=10.0.0." + node + ", podIP=10.244." + node + "." + strconv.Itoa(2+r.IntN(250)) + ")",
	}
}
