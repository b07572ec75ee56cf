package server

import (
	"encoding/base64"
	"fmt"
	"slices"
	"strings"
	"testing"
)

// logplexBody is the HTTPS drain body of Heroku's documentation (two
// octet-counted RFC 5424 frames, no structured data) and a router line as
// Heroku's log format page shows it.
const logplexBody = "120 <40>1 2012-11-30T06:45:29+00:00 heroku web.3 d.73ea7440-270a-435a-a0ea-adf50b4e5f5a - State changed from starting to up\n" +
	"156 <40>1 2012-11-30T06:45:26+00:00 heroku web.3 d.73ea7440-270a-435a-a0ea-adf50b4e5f5a - Starting process with command `bundle exec rackup config.ru -p 24405`\n" +
	"175 <158>1 2012-11-30T06:45:30.123456+00:00 host heroku router - at=info method=GET path=\"/\" host=myapp.herokuapp.com fwd=\"1.2.3.4\" dyno=web.1 connect=1ms service=18ms status=200\n"

// drain is a request as a Heroku drain sends it: basic auth with the token
// as the password, no org header, the logplex media type.
func drain(path, token, body string, count int) req {
	return req{method: "POST", path: path, body: body, token: "-", noOrg: true, contentType: "application/logplex-1",
		headers: map[string]string{
			"Authorization":       "Basic " + base64.StdEncoding.EncodeToString([]byte("axiom:"+token)),
			"Logplex-Msg-Count":   fmt.Sprint(count),
			"Logplex-Frame-Id":    "09C557EAFCFB6CF2740EE62F62971098",
			"Logplex-Drain-Token": "d.73ea7440-270a-435a-a0ea-adf50b4e5f5a",
		}}
}

// A drain with an API token that may ingest into the dataset stores one
// event per frame, the syslog header parsed into fields and the frame's
// timestamp as _time, on both ingest routes.
func TestHerokuDrain(t *testing.T) {
	ts := newTestServer(t)
	ts.createDataset("heroku")
	tok := ts.newToken(map[string]any{"heroku": map[string]any{"ingest": []string{"create"}}}, nil).Token
	var st ingestStatus
	ts.must(drain("/v1/datasets/heroku/ingest", tok, logplexBody, 3), 200).json(t, &st)
	if st.Ingested != 3 || st.Failed != 0 || st.ProcessedBytes != int64(len(logplexBody)) {
		t.Fatalf("status %+v", st)
	}
	ts.must(drain("/v1/ingest/heroku", tok, logplexBody[:124], 1), 200).json(t, &st)
	if st.Ingested != 1 {
		t.Fatalf("second route: %+v", st)
	}
	got := ts.rowsOf("['heroku'] | project _time, hostname, application, procid, severity, facility, message",
		"_time", "hostname", "application", "procid", "severity", "facility", "message")
	want := []string{
		"_time=2012-11-30T06:45:26Z,hostname=heroku,application=web.3,procid=d.73ea7440-270a-435a-a0ea-adf50b4e5f5a,severity=emergency,facility=syslog,message=Starting process with command `bundle exec rackup config.ru -p 24405`",
		"_time=2012-11-30T06:45:29Z,hostname=heroku,application=web.3,procid=d.73ea7440-270a-435a-a0ea-adf50b4e5f5a,severity=emergency,facility=syslog,message=State changed from starting to up",
		"_time=2012-11-30T06:45:29Z,hostname=heroku,application=web.3,procid=d.73ea7440-270a-435a-a0ea-adf50b4e5f5a,severity=emergency,facility=syslog,message=State changed from starting to up",
		"_time=2012-11-30T06:45:30.123456Z,hostname=host,application=heroku,procid=router,severity=info,facility=local3,message=at=info method=GET path=\"/\" host=myapp.herokuapp.com fwd=\"1.2.3.4\" dyno=web.1 connect=1ms service=18ms status=200",
	}
	if !slices.Equal(got, want) {
		t.Errorf("rows:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

// Basic auth is read on the logplex door only, and a drain is held to the
// token's rights like any client.
func TestHerokuDrainAuth(t *testing.T) {
	ts := newTestServer(t)
	ts.createDataset("heroku")
	ts.createDataset("other")
	tok := ts.newToken(map[string]any{"heroku": map[string]any{"ingest": []string{"create"}}}, nil).Token
	// The same credentials on a plain NDJSON ingest are still refused.
	r := drain("/v1/datasets/heroku/ingest", tok, `{"a":1}`, 1)
	r.contentType = "application/x-ndjson"
	ts.mustErr(r, 403, "missing or malformed Authorization header")
	ts.mustErr(drain("/v1/datasets/heroku/ingest", "xaat-not-a-real-token", logplexBody, 3), 403, "invalid token")
	ts.mustErr(drain("/v1/datasets/other/ingest", tok, logplexBody, 3), 403, `not allowed to ingest into dataset "other"`)
	ts.mustErr(drain("/v1/datasets/missing/ingest", ts.token, logplexBody, 3), 403, "missing X-Axiom-Org-Id")
	admin := drain("/v1/datasets/missing/ingest", ts.token, logplexBody, 3)
	admin.noOrg = false
	ts.mustErr(admin, 404, `dataset "missing" not found`)
	garbled := drain("/v1/datasets/heroku/ingest", tok, logplexBody, 3)
	garbled.headers["Authorization"] = "Basic not-base64!"
	ts.mustErr(garbled, 403, "missing or malformed Authorization header")
	bad := drain("/v1/datasets/heroku/ingest", tok, logplexBody, 3)
	bad.headers["Logplex-Msg-Count"] = "three"
	ts.mustErr(bad, 400, `Logplex-Msg-Count: "three" is not a count`)
	if got := ts.rowsOf("['heroku'] | summarize n = count()", "n"); !slices.Equal(got, []string{"n=0"}) {
		t.Errorf("refused drains stored %v", got)
	}
}

// A frame that does not parse is one failure, the rest of the batch is
// stored, and frames Logplex-Msg-Count promised but the body lacks are
// counted as failed.
func TestHerokuDrainBadFrames(t *testing.T) {
	ts := newTestServer(t)
	ts.createDataset("heroku")
	body := "13 <999>1 - - -\n" + logplexBody[:124] + "80 <40>1 cut short"
	r := drain("/v1/datasets/heroku/ingest", ts.token, body, 5)
	r.noOrg = false // a personal token names its org
	var st ingestStatus
	ts.must(r, 200).json(t, &st)
	var errs []string
	for _, f := range st.Failures {
		errs = append(errs, f.Error)
	}
	want := []string{"frame 1: PRI 999: the largest is 191 (local7.debug)",
		"frame 3: octet count 80 runs past the end of the body (15 bytes left)",
		"Logplex-Msg-Count is 5 but the body holds 3 frames"}
	if st.Ingested != 1 || st.Failed != 4 || !slices.Equal(errs, want) {
		t.Fatalf("status %+v, failures %q", st, errs)
	}
}
