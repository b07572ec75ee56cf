package syslog

import (
	"errors"
	"fmt"
	"strings"
	"unicode/utf8"
)

// Message is one syslog message, read from either format. A string field
// is "" when the message does not have it (RFC 5424's NILVALUE "-"
// included).
type Message struct {
	// Priority is the PRI value, facility*8 + severity; a message with
	// none is 13 (user.notice), as RFC 3164 section 4.3.3 says a relay
	// should take it.
	Priority int
	// Version is 1 for RFC 5424, 0 for the BSD format.
	Version int
	// Time is the message's timestamp in Unix nanoseconds; HasTime is
	// false when it has none (the event then takes the time it arrived).
	Time    int64
	HasTime bool
	// Hostname, AppName, ProcID and MsgID are the header fields (in the
	// BSD format AppName and ProcID come from the TAG, "sshd[42]:").
	Hostname, AppName, ProcID, MsgID string
	// StructuredData maps each SD-ID to its parameters (a repeated
	// parameter keeps its last value); nil when there is none.
	StructuredData map[string]any
	// Text is the MSG part, without its BOM or a trailing newline.
	Text string
}

// Facility returns the facility code, 0 to 23.
func (m *Message) Facility() int { return m.Priority >> 3 }

// Severity returns the severity code, 0 (emergency) to 7 (debug).
func (m *Message) Severity() int { return m.Priority & 7 }

// defaultPriority is user.notice, what a message without a PRI is given.
const defaultPriority = 13

// maxPriority is local7.debug: 23*8 + 7.
const maxPriority = 191

// Parse reads one message (one frame, without its framing). now, in Unix
// nanoseconds, gives a BSD timestamp its year, which that format leaves
// out. The strings of the result share one copy of frame, made valid
// UTF-8 (an invalid byte sequence becomes U+FFFD, as JSON ingest does).
func Parse(frame []byte, now int64) (Message, error) {
	return ParseString(string(frame), now)
}

// ParseString is Parse over a string the caller already owns; the
// result's strings point into it.
func ParseString(s string, now int64) (Message, error) {
	if !utf8.ValidString(s) {
		s = strings.ToValidUTF8(s, "\uFFFD")
	}
	s = strings.TrimRight(s, "\r\n")
	m := Message{Priority: defaultPriority}
	if strings.HasPrefix(s, "<") {
		pri, rest, err := parsePRI(s)
		if err != nil {
			return m, err
		}
		m.Priority, s = pri, rest
	}
	if v, rest, ok := version(s); ok {
		m.Version = v
		return m, parse5424(&m, rest)
	}
	parse3164(&m, s, now)
	return m, nil
}

// parsePRI reads "<N>" with N of 1 to 3 digits and at most 191.
func parsePRI(s string) (int, string, error) {
	end := strings.IndexByte(s, '>')
	if end < 0 || end > 4 {
		return 0, "", errors.New("PRI: \"<\" is not followed by up to 3 digits and \">\"")
	}
	if end == 1 {
		return 0, "", errors.New("PRI: empty \"<>\"")
	}
	n := 0
	for i := 1; i < end; i++ {
		c := s[i]
		if c < '0' || c > '9' {
			return 0, "", fmt.Errorf("PRI: %q is not a number", s[1:end])
		}
		n = n*10 + int(c-'0')
	}
	if n > maxPriority {
		return 0, "", fmt.Errorf("PRI %d: the largest is %d (local7.debug)", n, maxPriority)
	}
	return n, s[end+1:], nil
}

// version reads RFC 5424's VERSION and the space after it: 1 to 3 digits,
// the first not 0. A BSD message has a month name (or its text) there.
func version(s string) (int, string, bool) {
	n, i := 0, 0
	for ; i < len(s) && i < 3 && s[i] >= '0' && s[i] <= '9'; i++ {
		n = n*10 + int(s[i]-'0')
	}
	if i == 0 || s[0] == '0' || i >= len(s) || s[i] != ' ' {
		return 0, s, false
	}
	return n, s[i+1:], true
}

// token cuts s at its first space: the field and what follows the space.
func token(s string) (string, string) {
	if i := strings.IndexByte(s, ' '); i >= 0 {
		return s[:i], s[i+1:]
	}
	return s, ""
}

// nilValue maps RFC 5424's NILVALUE to "".
func nilValue(s string) string {
	if s == "-" {
		return ""
	}
	return s
}

// parse5424 reads what follows VERSION: TIMESTAMP HOSTNAME APP-NAME PROCID
// MSGID STRUCTURED-DATA [MSG].
func parse5424(m *Message, s string) error {
	ts, s := token(s)
	if ts != "-" {
		t, err := parseRFC3339(ts)
		if err != nil {
			return fmt.Errorf("TIMESTAMP %q: %v", ts, err)
		}
		m.Time, m.HasTime = t, true
	}
	var f string
	f, s = token(s)
	m.Hostname = nilValue(f)
	f, s = token(s)
	m.AppName = nilValue(f)
	f, s = token(s)
	m.ProcID = nilValue(f)
	f, s = token(s)
	m.MsgID = nilValue(f)
	switch {
	case s == "-" || strings.HasPrefix(s, "- "):
		s = strings.TrimPrefix(strings.TrimPrefix(s, "-"), " ")
	case strings.HasPrefix(s, "["):
		sd, rest, err := parseSD(s)
		if err != nil {
			return err
		}
		m.StructuredData = sd
		s = strings.TrimPrefix(rest, " ")
	}
	// Anything else: no STRUCTURED-DATA at all (Heroku's frames), so the
	// message starts here.
	m.Text = strings.TrimPrefix(s, "\uFEFF")
	return nil
}

// parseSD reads one or more SD-ELEMENTs: [ID NAME="VALUE" ...], where a
// value escapes '"', '\' and ']' with a backslash.
func parseSD(s string) (map[string]any, string, error) {
	sd := make(map[string]any)
	for strings.HasPrefix(s, "[") {
		end := strings.IndexAny(s, " ]")
		if end < 0 {
			return nil, "", errors.New("STRUCTURED-DATA: an element does not close with \"]\"")
		}
		id := s[1:end]
		if id == "" {
			return nil, "", errors.New("STRUCTURED-DATA: an element has no SD-ID")
		}
		params, _ := sd[id].(map[string]any)
		if params == nil {
			params = make(map[string]any)
			sd[id] = params
		}
		s = s[end:]
		for strings.HasPrefix(s, " ") {
			var err error
			if s, err = parseParam(strings.TrimLeft(s, " "), id, params); err != nil {
				return nil, "", err
			}
		}
		if !strings.HasPrefix(s, "]") {
			return nil, "", fmt.Errorf("STRUCTURED-DATA [%s: the element does not close with \"]\"", id)
		}
		s = s[1:]
	}
	return sd, s, nil
}

// parseParam reads NAME="VALUE" into params and returns what follows it.
func parseParam(s, id string, params map[string]any) (string, error) {
	eq := strings.IndexByte(s, '=')
	if eq <= 0 || eq+1 >= len(s) || s[eq+1] != '"' {
		return "", fmt.Errorf("STRUCTURED-DATA [%s: a parameter is not NAME=\"VALUE\"", id)
	}
	name := s[:eq]
	if strings.ContainsAny(name, " ]\"") {
		return "", fmt.Errorf("STRUCTURED-DATA [%s: parameter name %q has a space, ']' or '\"'", id, name)
	}
	s = s[eq+2:]
	escaped := false
	for i := 0; i < len(s); i++ {
		switch s[i] {
		case '\\':
			escaped, i = true, i+1 // whatever follows is not the closing quote
		case '"':
			v := s[:i]
			if escaped {
				v = unescape(v)
			}
			params[name] = v
			return s[i+1:], nil
		}
	}
	return "", fmt.Errorf("STRUCTURED-DATA [%s %s: the value does not close with '\"'", id, name)
}

// unescape undoes a PARAM-VALUE's escapes: \" \\ and \] stand for the
// character after the backslash; any other backslash is kept (RFC 5424
// section 6.3.3).
func unescape(v string) string {
	var b strings.Builder
	b.Grow(len(v))
	for i := 0; i < len(v); i++ {
		if c := v[i]; c == '\\' && i+1 < len(v) && (v[i+1] == '"' || v[i+1] == '\\' || v[i+1] == ']') {
			i++
		}
		b.WriteByte(v[i])
	}
	return b.String()
}

// parse3164 reads a BSD message after its PRI: TIMESTAMP HOSTNAME TAG:
// MSG. Each part is optional in what senders write, so a part that is
// not there leaves the rest to the next: no timestamp means the whole is
// the message (RFC 3164 section 4.3.2); a token that is already the TAG
// ("sshd[42]:") means there is no hostname. rsyslog's forwarding format
// puts an RFC 3339 timestamp where the BSD one goes; it is read too.
func parse3164(m *Message, s string, now int64) {
	if t, rest, ok := parseBSDTime(s, now); ok {
		m.Time, m.HasTime, s = t, true, rest
	} else if ts, rest := token(s); len(ts) >= 20 && ts[4] == '-' {
		t, err := parseRFC3339(ts)
		if err != nil {
			m.Text = s
			return
		}
		m.Time, m.HasTime, s = t, true, rest
	} else {
		m.Text = s
		return
	}
	if h, rest := token(s); h != "" && rest != "" && !strings.HasSuffix(h, ":") && !strings.Contains(h, "[") {
		m.Hostname, s = h, rest
	}
	// The TAG is the next word, its ':' optional: rsyslog reads it so, and
	// its imfile inputs forward a tag without one ("webapp request done").
	tag, rest := token(s)
	tag = strings.TrimSuffix(tag, ":")
	if open := strings.IndexByte(tag, '['); open > 0 && strings.HasSuffix(tag, "]") {
		m.ProcID = tag[open+1 : len(tag)-1]
		tag = tag[:open]
	}
	m.AppName, m.Text = tag, rest
}
