package core

import (
	"github.com/aplite/aplite/core/plan"
	"github.com/aplite/aplite/parser"
)

// fastPattern prepares the scanner for kind=simple patterns in which
// every `*` and capture is followed by a constant or ends the pattern, the
// common shape (`* "id=" id:long "," *`). It returns nil for any other
// pattern, which then always uses the regular expression.
func fastPattern(items []*parser.ParseItem) []plan.ParseItem {
	var out []plan.ParseItem
	n := 0
	for i, it := range items {
		fi := plan.ParseItem{Cap: -1, Star: it.Star, Const: it.Const, Type: it.Type}
		if !it.Star && it.Name != "" {
			fi.Cap = n
			n++
		}
		if fi.Cap >= 0 || fi.Star {
			if i+1 < len(items) && (items[i+1].Star || items[i+1].Name != "" || items[i+1].Const == "") {
				return nil
			}
		} else if fi.Const == "" {
			return nil
		}
		out = append(out, fi)
	}
	return out
}
