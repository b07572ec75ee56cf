package fn

import (
	"strconv"
	"strings"

	"github.com/aplite/aplite/vector"
)

// format_datetime(datetime, format) with KQL's format specifiers:
// d dd (day), f..fffffffff (fraction, fixed width), F..FFFFFFFFF
// (fraction without trailing zeros), h hh (12-hour), H HH, m mm, M MM,
// s ss, y yy yyyy, tt (AM/PM). Any other character is copied; a
// backslash copies the next character.

func init() {
	Register(&Func{Name: "format_datetime", Family: famTime, MinArgs: 2, MaxArgs: 2,
		Result: Sig("format_datetime", vector.String, KTime, KString),
		Eval: func(_ *Context, args []*vector.Vector, n Rows) (*vector.Vector, error) {
			if args[1].Const {
				f, ok := ToString(args[1], 0)
				if !ok {
					return Nulls(vector.String, n.N), nil
				}
				layout := parseDateFormat(f)
				return Unary(vector.String, args[0], n, ToTime, func(ns int64) (string, bool) {
					return layout.format(ns), true
				}), nil
			}
			return Binary(vector.String, args[0], args[1], n, ToTime, ToString, func(ns int64, f string) (string, bool) {
				return parseDateFormat(f).format(ns), true
			}), nil
		},
		Doc: "format_datetime(datetime, format): the datetime as text, e.g. format \"yyyy-MM-dd HH:mm:ss\"."})
}

// dateToken is one piece of a parsed format: a specifier run (letter and
// count) or literal text (letter 0).
type dateToken struct {
	letter byte
	count  int
	text   string
}

type dateLayout []dateToken

func parseDateFormat(f string) dateLayout {
	var out dateLayout
	for i := 0; i < len(f); {
		c := f[i]
		if c == '\\' && i+1 < len(f) {
			out = append(out, dateToken{text: f[i+1 : i+2]})
			i += 2
			continue
		}
		if !strings.ContainsRune("dfFhHmMsyt", rune(c)) {
			out = append(out, dateToken{text: f[i : i+1]})
			i++
			continue
		}
		j := i
		for j < len(f) && f[j] == c {
			j++
		}
		out = append(out, dateToken{letter: c, count: j - i})
		i = j
	}
	return out
}

func pad(v, width int) string {
	s := strconv.Itoa(v)
	for len(s) < width {
		s = "0" + s
	}
	return s
}

func (l dateLayout) format(ns int64) string {
	t := utc(ns)
	var sb strings.Builder
	for _, tok := range l {
		n := tok.count
		switch tok.letter {
		case 0:
			sb.WriteString(tok.text)
		case 'd':
			sb.WriteString(pad(t.Day(), min(n, 2)))
		case 'H':
			sb.WriteString(pad(t.Hour(), min(n, 2)))
		case 'h':
			h := t.Hour() % 12
			if h == 0 {
				h = 12
			}
			sb.WriteString(pad(h, min(n, 2)))
		case 'm':
			sb.WriteString(pad(t.Minute(), min(n, 2)))
		case 'M':
			sb.WriteString(pad(int(t.Month()), min(n, 2)))
		case 's':
			sb.WriteString(pad(t.Second(), min(n, 2)))
		case 'y':
			switch {
			case n <= 2:
				sb.WriteString(pad(t.Year()%100, n))
			default:
				sb.WriteString(pad(t.Year(), n))
			}
		case 'f', 'F':
			frac := pad(t.Nanosecond(), 9)[:min(n, 9)]
			if tok.letter == 'F' {
				frac = strings.TrimRight(frac, "0")
			}
			sb.WriteString(frac)
		case 't':
			ampm := "AM"
			if t.Hour() >= 12 {
				ampm = "PM"
			}
			sb.WriteString(ampm[:min(n, 2)])
		}
	}
	return sb.String()
}
