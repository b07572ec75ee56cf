package syslog

import (
	"reflect"
	"strings"
	"testing"
	"time"
)

// now is the clock the tests read BSD timestamps against: 2026-11-28.
var now = time.Date(2026, 11, 28, 9, 30, 0, 0, time.UTC).UnixNano()

func ts(s string) int64 {
	t, err := time.Parse(time.RFC3339Nano, s)
	if err != nil {
		panic(err)
	}
	return t.UnixNano()
}

func TestParse(t *testing.T) {
	cases := []struct {
		name, in string
		want     Message
	}{
		{"RFC 5424 example 1 (BOM, no SD)",
			"<34>1 2003-10-11T22:14:15.003Z mymachine.example.com su - ID47 - \xEF\xBB\xBF'su root' failed for lonvick on /dev/pts/8",
			Message{Priority: 34, Version: 1, Time: ts("2003-10-11T22:14:15.003Z"), HasTime: true, Hostname: "mymachine.example.com",
				AppName: "su", MsgID: "ID47", Text: "'su root' failed for lonvick on /dev/pts/8"}},
		{"RFC 5424 example 2 (zone offset, microseconds, no message)",
			"<165>1 2003-08-24T05:14:15.000003-07:00 192.0.2.1 myproc 8710 - -",
			Message{Priority: 165, Version: 1, Time: ts("2003-08-24T12:14:15.000003Z"), HasTime: true, Hostname: "192.0.2.1",
				AppName: "myproc", ProcID: "8710"}},
		{"RFC 5424 example 3 (SD and message)",
			`<165>1 2003-10-11T22:14:15.003Z mymachine.example.com evntslog - ID47 [exampleSDID@32473 iut="3" eventSource="Application" eventID="1011"] BOMAn application event log entry...`,
			Message{Priority: 165, Version: 1, Time: ts("2003-10-11T22:14:15.003Z"), HasTime: true, Hostname: "mymachine.example.com",
				AppName: "evntslog", MsgID: "ID47",
				StructuredData: map[string]any{"exampleSDID@32473": map[string]any{"iut": "3", "eventSource": "Application", "eventID": "1011"}},
				Text:           "BOMAn application event log entry..."}},
		{"RFC 5424 example 4 (two SD elements, escapes, nothing after)",
			`<165>1 2003-10-11T22:14:15.003Z mymachine.example.com evntslog - ID47 [exampleSDID@32473 iut="3" note="a \"quoted\" \] \\ \n"][examplePriority@32473 class="high"]`,
			Message{Priority: 165, Version: 1, Time: ts("2003-10-11T22:14:15.003Z"), HasTime: true, Hostname: "mymachine.example.com",
				AppName: "evntslog", MsgID: "ID47",
				StructuredData: map[string]any{
					"exampleSDID@32473":     map[string]any{"iut": "3", "note": `a "quoted" ] \ \n`},
					"examplePriority@32473": map[string]any{"class": "high"}}}},
		{"Heroku logplex frame (no SD, trailing newline)",
			"<40>1 2012-11-30T06:45:29+00:00 host app web.3 - State changed from starting to up\n",
			Message{Priority: 40, Version: 1, Time: ts("2012-11-30T06:45:29Z"), HasTime: true, Hostname: "host", AppName: "app",
				ProcID: "web.3", Text: "State changed from starting to up"}},
		{"nil timestamp and fields",
			"<13>1 - - - - - -",
			Message{Priority: 13, Version: 1}},
		{"BSD with host and tag[pid]",
			"<38>Nov  8 10:01:02 myhost sshd[4242]: Accepted publickey for root",
			Message{Priority: 38, Time: ts("2026-11-08T10:01:02Z"), HasTime: true, Hostname: "myhost", AppName: "sshd",
				ProcID: "4242", Text: "Accepted publickey for root"}},
		{"BSD without host",
			"<13>Nov 28 09:00:00 myapp: hello there",
			Message{Priority: 13, Time: ts("2026-11-28T09:00:00Z"), HasTime: true, AppName: "myapp", Text: "hello there"}},
		{"BSD December read in January's year before",
			"<13>Dec 31 23:59:59 h t: x",
			Message{Priority: 13, Time: ts("2025-12-31T23:59:59Z"), HasTime: true, Hostname: "h", AppName: "t", Text: "x"}},
		{"BSD with rsyslog's RFC 3339 timestamp",
			"<86>2026-11-28T09:10:11.123456+01:00 web1 cron[7]: job done",
			Message{Priority: 86, Time: ts("2026-11-28T08:10:11.123456Z"), HasTime: true, Hostname: "web1", AppName: "cron",
				ProcID: "7", Text: "job done"}},
		{"BSD tag without its colon (rsyslog's imfile)",
			"<13>Nov 28 09:00:00 myhost webapp request done",
			Message{Priority: 13, Time: ts("2026-11-28T09:00:00Z"), HasTime: true, Hostname: "myhost", AppName: "webapp", Text: "request done"}},
		{"no PRI at all (nc)", "tcp message", Message{Priority: 13, Text: "tcp message"}},
		{"PRI and free text", "<11>something broke", Message{Priority: 11, Text: "something broke"}},
		{"invalid UTF-8 becomes U+FFFD", "<13>1 - h a - - - bad \xff byte",
			Message{Priority: 13, Version: 1, Hostname: "h", AppName: "a", Text: "bad \uFFFD byte"}},
	}
	for _, c := range cases {
		got, err := Parse([]byte(c.in), now)
		if err != nil {
			t.Errorf("%s: %v", c.name, err)
			continue
		}
		if !reflect.DeepEqual(got, c.want) {
			t.Errorf("%s:\n got  %+v\n want %+v", c.name, got, c.want)
		}
	}
}

func TestParseErrors(t *testing.T) {
	cases := []struct{ in, want string }{
		{"<192>1 - - - - - -", "PRI 192: the largest is 191"},
		{"<>1 - - - - - -", "PRI: empty"},
		{"<1a>hello", `PRI: "1a" is not a number`},
		{"<12345>x", "PRI: \"<\" is not followed by up to 3 digits"},
		{"<13>1 2003-13-11T22:14:15Z h a - - - x", `TIMESTAMP "2003-13-11T22:14:15Z": a date or time part is out of range`},
		{"<13>1 2003-10-11 h a - - - x", `TIMESTAMP "2003-10-11": want YYYY-MM-DDTHH:MM:SS`},
		{"<13>1 2003-10-11T22:14:15+25:00 h a - - - x", "the zone offset is out of range"},
		{"<13>1 2003-02-29T22:14:15Z h a - - - x", "out of range"},
		{"<13>1 1003-02-20T22:14:15Z h a - - - x", "the year is outside 1678 to 2261"},
		{`<13>1 - h a - - [id k="v x`, `STRUCTURED-DATA [id k: the value does not close`},
		{`<13>1 - h a - - [id k="v" x] y`, `STRUCTURED-DATA [id: a parameter is not NAME="VALUE"`},
		{`<13>1 - h a - - [id k="v"`, `STRUCTURED-DATA [id: the element does not close`},
		{`<13>1 - h a - - [id k=v] x`, `STRUCTURED-DATA [id: a parameter is not NAME="VALUE"`},
		{`<13>1 - h a - - [id`, `an element does not close`},
		{`<13>1 - h a - - [] x`, `an element has no SD-ID`},
	}
	for _, c := range cases {
		_, err := Parse([]byte(c.in), now)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("Parse(%q) = %v, want an error with %q", c.in, err, c.want)
		}
	}
}

func TestNames(t *testing.T) {
	m := Message{Priority: 165} // local4.notice
	if f, s := FacilityName(m.Facility()), SeverityName(m.Severity()); f != "local4" || s != "notice" {
		t.Errorf("<165> = %s.%s, want local4.notice", f, s)
	}
	m.Priority = 3 // kern.error
	if f, s := FacilityName(m.Facility()), SeverityName(m.Severity()); f != "kern" || s != "error" {
		t.Errorf("<3> = %s.%s, want kern.error", f, s)
	}
}
