package syslog

import (
	"errors"
	"strings"
	"time"
)

// parseRFC3339 reads RFC 5424's TIMESTAMP, an RFC 3339 date-time
// (YYYY-MM-DDTHH:MM:SS[.frac](Z|+hh:mm|-hh:mm)), into Unix nanoseconds.
// It is hand-written because it runs once per message: time.Parse costs
// several times more. A fraction past nanoseconds is cut.
func parseRFC3339(s string) (int64, error) {
	if len(s) < 20 || s[4] != '-' || s[7] != '-' || (s[10] != 'T' && s[10] != 't') || s[13] != ':' || s[16] != ':' {
		return 0, errors.New("want YYYY-MM-DDTHH:MM:SS with a zone")
	}
	year, ok1 := digits(s[0:4])
	month, ok2 := digits(s[5:7])
	day, ok3 := digits(s[8:10])
	hour, ok4 := digits(s[11:13])
	minute, ok5 := digits(s[14:16])
	sec, ok6 := digits(s[17:19])
	if !(ok1 && ok2 && ok3 && ok4 && ok5 && ok6) {
		return 0, errors.New("a date or time part is not a number")
	}
	if month < 1 || month > 12 || day < 1 || day > daysIn(time.Month(month), year) || hour > 23 || minute > 59 || sec > 60 {
		return 0, errors.New("a date or time part is out of range")
	}
	rest := s[19:]
	nsec := 0
	if rest[0] == '.' {
		i := 1
		for scale := 100_000_000; i < len(rest) && rest[i] >= '0' && rest[i] <= '9'; i++ {
			nsec += int(rest[i]-'0') * scale
			scale /= 10
		}
		if i == 1 {
			return 0, errors.New("a '.' with no fraction after it")
		}
		rest = rest[i:]
	}
	offset, err := zoneOffset(rest)
	if err != nil {
		return 0, err
	}
	if year < 1678 || year > 2261 { // int64 nanoseconds hold 1677-09-21 to 2262-04-11
		return 0, errors.New("the year is outside 1678 to 2261")
	}
	t := time.Date(year, time.Month(month), day, hour, minute, sec, nsec, time.UTC)
	return t.UnixNano() - int64(offset)*int64(time.Second), nil
}

// zoneOffset reads Z or ±hh:mm into seconds east of UTC.
func zoneOffset(s string) (int, error) {
	if s == "Z" || s == "z" {
		return 0, nil
	}
	if len(s) != 6 || (s[0] != '+' && s[0] != '-') || s[3] != ':' {
		return 0, errors.New("want the zone as Z, +hh:mm or -hh:mm")
	}
	h, ok1 := digits(s[1:3])
	m, ok2 := digits(s[4:6])
	if !ok1 || !ok2 || h > 23 || m > 59 {
		return 0, errors.New("the zone offset is out of range")
	}
	off := h*3600 + m*60
	if s[0] == '-' {
		off = -off
	}
	return off, nil
}

// digits reads s, all ASCII digits, as a number.
func digits(s string) (int, bool) {
	n := 0
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c < '0' || c > '9' {
			return 0, false
		}
		n = n*10 + int(c-'0')
	}
	return n, true
}

// daysIn returns the number of days of month in year.
func daysIn(month time.Month, year int) int {
	return time.Date(year, month+1, 0, 0, 0, 0, 0, time.UTC).Day()
}

var months = [...]string{"Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"}

// parseBSDTime reads RFC 3164's TIMESTAMP, "Mmm dd hh:mm:ss" (a one-digit
// day is padded with a space; senders also write it with a 0), and
// returns what follows it. The format has no year and no zone: the time
// is taken as UTC in the year of now, or of the year before when that
// would put it more than a day after now (a December message read in
// January).
func parseBSDTime(s string, now int64) (int64, string, bool) {
	if len(s) < 15 || s[3] != ' ' || s[6] != ' ' || s[9] != ':' || s[12] != ':' || (len(s) > 15 && s[15] != ' ') {
		return 0, s, false
	}
	month := 0
	for i, name := range months {
		if strings.EqualFold(s[:3], name) {
			month = i + 1
		}
	}
	dd := s[4:6]
	if dd[0] == ' ' {
		dd = "0" + dd[1:]
	}
	day, ok1 := digits(dd)
	hour, ok2 := digits(s[7:9])
	minute, ok3 := digits(s[10:12])
	sec, ok4 := digits(s[13:15])
	if month == 0 || !(ok1 && ok2 && ok3 && ok4) || day < 1 || day > 31 || hour > 23 || minute > 59 || sec > 60 {
		return 0, s, false
	}
	nowT := time.Unix(0, now).UTC()
	t := time.Date(nowT.Year(), time.Month(month), day, hour, minute, sec, 0, time.UTC)
	if t.Sub(nowT) > 24*time.Hour {
		t = t.AddDate(-1, 0, 0)
	}
	rest := s[15:]
	if rest != "" {
		rest = rest[1:]
	}
	return t.UnixNano(), rest, true
}
