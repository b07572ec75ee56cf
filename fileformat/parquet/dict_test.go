package parquet_test

import (
	"bytes"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	pq "github.com/parquet-go/parquet-go"
	"github.com/parquet-go/parquet-go/format"

	"github.com/aplite/aplite/core/store"
	"github.com/aplite/aplite/fileformat/parquet"
	"github.com/aplite/aplite/vector"
)

var update = flag.Bool("update", false, "rewrite the golden files of testdata/")

// dictRow holds one value three ways: plain pages, dictionary pages with
// nulls, and dictionary pages of a required column.
type dictRow struct {
	Plain *string `parquet:"plain,optional"`
	Dict  *string `parquet:"dict,optional,dict"`
	Req   string  `parquet:"req,dict"`
}

// dictRows repeats a few values, with a unique one every fourth row (so
// a small dictionary limit overflows) and a null every eleventh.
func dictRows(n int) []dictRow {
	rows := make([]dictRow, n)
	for i := range rows {
		s := fmt.Sprintf("r%d", i%3)
		if i%4 == 0 {
			s = fmt.Sprintf("unique-%032d", i)
		}
		rows[i].Req = s
		if i%11 != 0 {
			rows[i].Plain, rows[i].Dict = &s, &s
		}
	}
	return rows
}

func writeDictRows(t *testing.T, rows []dictRow, opts ...pq.WriterOption) []byte {
	t.Helper()
	var buf bytes.Buffer
	opts = append(opts, pq.MaxRowsPerRowGroup(1000), pq.PageBufferSize(2048))
	w := pq.NewGenericWriter[dictRow](&buf, opts...)
	if _, err := w.Write(rows); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// chunkEncodings lists, per column name, the encodings of its chunks'
// data pages, as the footer tells them.
func chunkEncodings(t *testing.T, file []byte) map[string][]format.Encoding {
	t.Helper()
	pf, err := pq.OpenFile(bytes.NewReader(file), int64(len(file)))
	if err != nil {
		t.Fatal(err)
	}
	out := map[string][]format.Encoding{}
	for _, rg := range pf.Metadata().RowGroups {
		for _, c := range rg.Columns {
			name := strings.Join(c.MetaData.PathInSchema, ".")
			if len(c.MetaData.EncodingStats) == 0 {
				t.Fatalf("%s: no page encoding statistics", name)
			}
			for _, st := range c.MetaData.EncodingStats {
				e := st.Encoding
				if st.PageType != format.DictionaryPage && !slices.Contains(out[name], e) {
					out[name] = append(out[name], e)
				}
			}
		}
	}
	return out
}

// readAll reads every row group of file, rendering each row as
// "plain|dict|req" (null as ∅), and counts the string columns that came
// out in the dictionary form.
func readAll(t *testing.T, file []byte) (lines []string, coded map[string]int) {
	t.Helper()
	f, err := parquet.Open(bytes.NewReader(file), int64(len(file)), nil)
	if err != nil {
		t.Fatal(err)
	}
	coded = map[string]int{}
	for i := range f.NumRowGroups() {
		rows, err := f.ReadRowGroup(i, 0)
		if err != nil {
			t.Fatalf("row group %d: %v", i, err)
		}
		var cols []*vector.Vector
		for _, name := range []string{"plain", "dict", "req"} {
			v := rows.Column(store.ColKey{Name: name, Type: vector.String})
			if v == nil {
				t.Fatalf("row group %d: no column %s in %v", i, name, rows.Keys)
			}
			if v.Len != rows.N {
				t.Fatalf("row group %d: %s has %d rows of %d", i, name, v.Len, rows.N)
			}
			if v.Codes != nil {
				coded[name]++
			}
			cols = append(cols, v)
		}
		for r := range rows.N {
			var cells []string
			for _, v := range cols {
				if v.IsNull(r) {
					cells = append(cells, "∅")
				} else {
					cells = append(cells, v.Str(r))
				}
			}
			lines = append(lines, strings.Join(cells, "|"))
		}
	}
	return lines, coded
}

func want(rows []dictRow) []string {
	var out []string
	for _, r := range rows {
		p := "∅"
		if r.Plain != nil {
			p = *r.Plain
		}
		out = append(out, p+"|"+p+"|"+r.Req)
	}
	return out
}

// Dictionary-encoded string chunks read as Dict+Codes with the values
// and nulls plain pages give; a chunk whose dictionary overflowed and
// went on with plain pages reads the same values, as strings.
func TestReadDictionary(t *testing.T) {
	rows := dictRows(2500)
	for _, c := range []struct {
		name  string
		opts  []pq.WriterOption
		coded bool // the dict columns come out as codes in every row group
		mixed bool // their chunks mix dictionary and plain pages
	}{
		{name: "dictionary", coded: true},
		{name: "fallback", opts: []pq.WriterOption{pq.DictionaryMaxBytes(512)}, mixed: true},
	} {
		t.Run(c.name, func(t *testing.T) {
			file := writeDictRows(t, rows, c.opts...)
			enc := chunkEncodings(t, file)
			if slices.Contains(enc["plain"], format.RLEDictionary) {
				t.Fatalf("the plain column has dictionary pages: %v", enc["plain"])
			}
			for _, col := range []string{"dict", "req"} {
				hasPlain := slices.Contains(enc[col], format.Plain)
				if !slices.Contains(enc[col], format.RLEDictionary) || hasPlain != c.mixed {
					t.Fatalf("%s's encodings %v: the file does not test what it claims", col, enc[col])
				}
			}
			got, coded := readAll(t, file)
			if d := firstDiff(got, want(rows)); d != "" {
				t.Fatal(d)
			}
			groups := (len(rows) + 999) / 1000
			if coded["plain"] != 0 {
				t.Errorf("plain pages read as codes in %d row groups", coded["plain"])
			}
			for _, col := range []string{"dict", "req"} {
				if c.coded && coded[col] != groups {
					t.Errorf("%s: codes in %d of %d row groups", col, coded[col], groups)
				}
				if c.mixed && coded[col] == groups {
					t.Errorf("%s: every row group read as codes, though its chunks fell back to plain", col)
				}
			}
		})
	}
}

// The rows of a file mixing the three encodings, as read, are
// testdata/dictionary.golden (go test -run Golden -update rewrites it).
func TestReadDictionaryGolden(t *testing.T) {
	file := writeDictRows(t, dictRows(1200), pq.DictionaryMaxBytes(512))
	got, _ := readAll(t, file)
	text := strings.Join(got, "\n") + "\n"
	path := filepath.Join("testdata", "dictionary.golden")
	if *update {
		if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	golden, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if d := firstDiff(got, strings.Split(strings.TrimSuffix(string(golden), "\n"), "\n")); d != "" {
		t.Fatal(d)
	}
}

// Our exports dictionary-encode the strings that repeat, so they are
// read as codes, and leave unique ones plain.
func TestWriteDictionary(t *testing.T) {
	file := toParquet(t, events(3000))
	enc := chunkEncodings(t, file)
	for _, col := range []string{"uri", "geo.city"} {
		if !slices.Contains(enc[col], format.RLEDictionary) {
			t.Errorf("%s is written %v, not dictionary-encoded", col, enc[col])
		}
	}
	if slices.Contains(enc["rare"], format.RLEDictionary) {
		t.Errorf("rare, whose values are unique, is written %v", enc["rare"])
	}
	f, err := parquet.Open(bytes.NewReader(file), int64(len(file)), nil)
	if err != nil {
		t.Fatal(err)
	}
	rows, err := f.ReadRowGroup(0, 0)
	if err != nil {
		t.Fatal(err)
	}
	v := rows.Column(store.ColKey{Name: "uri", Type: vector.String})
	if v == nil || v.Codes == nil || len(v.Dict) != 7 {
		t.Fatalf("uri read as codes: %t, %d dictionary values; want 7", v != nil && v.Codes != nil, len(v.Dict))
	}
	checkFirstRow(t, rows)
}

func firstDiff(got, want []string) string {
	for i := range min(len(got), len(want)) {
		if got[i] != want[i] {
			return fmt.Sprintf("row %d: %q, want %q", i, got[i], want[i])
		}
	}
	if len(got) != len(want) {
		return fmt.Sprintf("%d rows, want %d", len(got), len(want))
	}
	return ""
}
