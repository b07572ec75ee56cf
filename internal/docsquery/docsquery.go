// Package docsquery holds the APL queries of Axiom's public documentation
// (github.com/axiomhq/docs) and the code that extracts them from the
// documentation's .mdx pages, so that a test can run every documented
// query against aplite (issue 14).
//
// A page's code blocks tagged kusto or apl are candidates; a block is
// kept when its first statement (after comments) is runnable text rather
// than a syntax template: a dataset reference such as
// ['sample-http-logs'], or a query that needs no dataset (print,
// datatable, let, union, search, externaldata). Blocks without a language
// count when they start with a dataset reference.
package docsquery

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"path"
	"regexp"
	"strings"
)

// Query is one documented APL query.
type Query struct {
	// ID names the query stably: the page's path under content/docs
	// without route groups such as "(query-reference)" and without
	// ".mdx", then "#" and the query's 1-based position on the page.
	ID string `json:"id"`
	// Page is the .mdx file's path in the docs repository.
	Page string `json:"page"`
	// Line is the 1-based line of the query's first line in Page.
	Line int `json:"line"`
	// APL is the block's text with the fence's indentation removed.
	APL string `json:"apl"`
}

// fence opens or closes a Markdown code block: indentation, three or more
// backticks, and on an opening fence the info string (language, title).
var fence = regexp.MustCompile("^([ \t]*)(```+)[ \t]*(.*)$")

// runnable matches the start of a query's first statement when it can run
// as it stands: a quoted dataset reference or a dataset-less statement.
// A stray ";" after the dataset is a typo of one page, kept so that the
// query is listed (and fails) rather than silently dropped.
var runnable = regexp.MustCompile(`^((\['[^']+'\]|\["[^"]+"\])\s*(\||;|$)|(print|datatable|let|union|search|externaldata)\b)`)

// datasetRef matches the start of a query over a quoted dataset.
var datasetRef = regexp.MustCompile(`^(\['[^']+'\]|\["[^"]+"\])\s*(\||;|$)`)

// Extract returns the runnable queries of one .mdx page; page is its path
// in the repository (for Query.Page and Query.ID).
func Extract(page string, src []byte) []Query {
	lines := strings.Split(strings.ReplaceAll(string(src), "\r\n", "\n"), "\n")
	var out []Query
	for i := 0; i < len(lines); i++ {
		m := fence.FindStringSubmatch(lines[i])
		if m == nil {
			continue
		}
		indent, ticks, info := m[1], m[2], m[3]
		// The block ends at a fence of at least as many backticks with
		// nothing after it (CommonMark).
		end := i + 1
		for end < len(lines) {
			c := fence.FindStringSubmatch(lines[end])
			if c != nil && len(c[2]) >= len(ticks) && strings.TrimSpace(c[3]) == "" {
				break
			}
			end++
		}
		lang := strings.ToLower(strings.Fields(info + " x")[0])
		body := dedent(lines[i+1:min(end, len(lines))], indent)
		switch {
		case (lang == "kusto" || lang == "apl") && isRunnable(body, runnable):
			out = append(out, Query{Page: page, Line: i + 2, APL: body})
		case info == "" && isRunnable(body, datasetRef):
			// A few pages leave the language off; a block that starts
			// with a quoted dataset is APL all the same.
			out = append(out, Query{Page: page, Line: i + 2, APL: body})
		}
		i = end
	}
	id := pageID(page)
	for n := range out {
		out[n].ID = fmt.Sprintf("%s#%d", id, n+1)
	}
	return out
}

// dedent removes the opening fence's indentation from every line (blocks
// nested in JSX components such as <Tabs> are indented) and trims blank
// lines at both ends.
func dedent(lines []string, indent string) string {
	out := make([]string, 0, len(lines))
	for _, l := range lines {
		l = strings.TrimRight(l, " \t")
		if strings.HasPrefix(l, indent) {
			l = l[len(indent):]
		} else {
			l = strings.TrimLeft(l, " \t")
		}
		out = append(out, l)
	}
	for len(out) > 0 && out[0] == "" {
		out = out[1:]
	}
	for len(out) > 0 && out[len(out)-1] == "" {
		out = out[:len(out)-1]
	}
	return strings.Join(out, "\n")
}

// isRunnable reports whether the first line that is not blank or a
// comment matches start.
func isRunnable(body string, start *regexp.Regexp) bool {
	for _, l := range strings.Split(body, "\n") {
		l = strings.TrimSpace(l)
		if l == "" || strings.HasPrefix(l, "//") {
			continue
		}
		return start.MatchString(l)
	}
	return false
}

// pageID is page without the content/docs prefix, the Next.js route
// groups in parentheses and the .mdx extension.
func pageID(page string) string {
	p := strings.TrimSuffix(page, ".mdx")
	p = strings.TrimPrefix(p, "content/docs/")
	p = strings.TrimPrefix(p, "content/")
	var parts []string
	for _, s := range strings.Split(p, "/") {
		if strings.HasPrefix(s, "(") && strings.HasSuffix(s, ")") {
			continue
		}
		parts = append(parts, s)
	}
	return path.Join(parts...)
}

// Write writes queries as JSON lines, one query a line.
func Write(w io.Writer, qs []Query) error {
	bw := bufio.NewWriter(w)
	for _, q := range qs {
		b, err := json.Marshal(q)
		if err != nil {
			return err
		}
		bw.Write(b)
		bw.WriteByte('\n')
	}
	return bw.Flush()
}

// Read parses what Write wrote.
func Read(data []byte) ([]Query, error) {
	var out []Query
	for n, line := range bytes.Split(data, []byte("\n")) {
		if len(bytes.TrimSpace(line)) == 0 {
			continue
		}
		var q Query
		if err := json.Unmarshal(line, &q); err != nil {
			return nil, fmt.Errorf("line %d: %w", n+1, err)
		}
		out = append(out, q)
	}
	return out, nil
}
