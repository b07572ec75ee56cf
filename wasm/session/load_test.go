package session

import "testing"

// Detect reads text as the server's ingest.Sniff does (an empty body is
// JSON there: no events either way), and looks further only at Parquet
// and at a lone JSON object.
func TestDetect(t *testing.T) {
	for _, c := range []struct{ text, want string }{
		{"", JSON},
		{"PAR1\x15\x04", Parquet},
		{"[{\"a\":1}]", JSON},
		{"  \n[]", JSON},
		{"\ufeff{\"a\":1}\n{\"a\":2}\n", NDJSON},
		{"{\"a\":1}", JSON},
		{"{\n  \"a\": 1,\n  \"b\": {\"c\": 2}\n}\n", JSON},
		{`{"format":"tabular","status":{},"tables":[{"name":"0"}]}`, Tabular},
		{`{"format":"legacy","matches":[]}`, JSON},
		{"a,b\n1,2\n", CSV},
	} {
		if got := Detect([]byte(c.text)); got != c.want {
			t.Errorf("Detect(%q) = %q, want %q", c.text, got, c.want)
		}
	}
}

func TestNamesFromFiles(t *testing.T) {
	for _, c := range []struct{ file, name, format string }{
		{"logs.ndjson", "logs", NDJSON},
		{"C:\\tmp\\export.JSONL", "export", NDJSON},
		{"/home/me/http logs.csv", "http-logs", CSV},
		{"result.json", "result", Auto},
		{"_weird_.txt", "weird", Auto},
		{"???.json", "dropped", Auto},
	} {
		if got := DatasetName(c.file); got != c.name {
			t.Errorf("DatasetName(%q) = %q, want %q", c.file, got, c.name)
		}
		if got := FormatFromFileName(c.file); got != c.format {
			t.Errorf("FormatFromFileName(%q) = %q, want %q", c.file, got, c.format)
		}
	}
}
