package options_test

import (
	"bytes"
	"compress/gzip"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"maps"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/tributary-io/tributary/core/formats"
	"github.com/tributary-io/tributary/core/ingest"
	"github.com/tributary-io/tributary/core/state"
)

// readerCases are the behavioural cases of the reader area (owner: helper
// reader): the JSON reader options, bad records and bad files.
func readerCases() []optionCase {
	return []optionCase{
		{name: "mode PERMISSIVE keeps, DROPMALFORMED drops, FAILFAST fails on a malformed record", options: []string{"mode"}, run: func(t *testing.T) {
			const data = `{"a":"1"}` + "\n" + `{"a":` + "\n" + `{"a":"3"}` + "\n"
			for _, mode := range []string{"", "DROPMALFORMED", "FAILFAST"} {
				p := newPipe(t)
				p.write("a.json", data)
				opts := map[string]string{}
				if mode != "" {
					opts["mode"] = mode
				}
				_, err := p.run(opts)
				switch mode {
				case "":
					if err != nil {
						t.Fatalf("PERMISSIVE: %v", err)
					}
					if got := p.column("_corrupt_record"); !slices.Equal(got, []string{"null", "null", `{"a":`}) {
						t.Errorf("PERMISSIVE: _corrupt_record %v, want the malformed line kept", got)
					}
				case "DROPMALFORMED":
					if err != nil {
						t.Fatalf("DROPMALFORMED: %v", err)
					}
					if got := p.column("a"); !slices.Equal(got, []string{"1", "3"}) || slices.ContainsFunc(p.schema(), func(c string) bool { return strings.HasPrefix(c, "_corrupt") }) {
						t.Errorf("DROPMALFORMED: rows %v, schema %v: want the malformed line dropped, no corrupt column", got, p.schema())
					}
				case "FAILFAST":
					if !errors.Is(err, formats.ErrMalformedRecord) || !strings.Contains(err.Error(), "a.json line 2") {
						t.Errorf("FAILFAST: %v, want a failure naming a.json line 2", err)
					}
					if p.snapshot() != nil {
						t.Errorf("FAILFAST: a table was committed")
					}
				}
			}
			// With a rescued data column a type mismatch is not a bad record:
			// DROPMALFORMED keeps the row and rescues the value (Databricks).
			p := newPipe(t)
			p.write("a.json", `{"n":"x"}`+"\n"+`{"n":2}`+"\n")
			p.mustRun(map[string]string{"mode": "DROPMALFORMED", "cloudFiles.schemaHints": "n INT"})
			if rows := p.rows(); len(rows) != 2 {
				t.Errorf("DROPMALFORMED with rescue: %d rows, want 2 (the mismatch rescued)", len(rows))
			}
		}},
		{name: "columnNameOfCorruptRecord names the corrupt-record column", options: []string{"columnNameOfCorruptRecord"}, run: func(t *testing.T) {
			p := newPipe(t)
			p.write("a.json", `{"a":"1"}`+"\n"+`{"a":`+"\n")
			p.mustRun(map[string]string{"columnNameOfCorruptRecord": "_bad"})
			if got := p.column("_bad"); !slices.Equal(got, []string{"null", `{"a":`}) {
				t.Errorf("_bad %v, want the malformed line", got)
			}
			if slices.Contains(p.schema(), "_corrupt_record STRING") {
				t.Errorf("schema %v still has _corrupt_record", p.schema())
			}
		}},
		{name: "prefersDecimal infers 1.5 as DECIMAL(2,1)", options: []string{"prefersDecimal"}, run: func(t *testing.T) {
			for _, on := range []bool{true, false} {
				p := newPipe(t)
				p.write("a.json", `{"x":1.5}`+"\n")
				p.mustRun(map[string]string{"cloudFiles.inferColumnTypes": "true", "prefersDecimal": fmt.Sprint(on)})
				want := "x DOUBLE"
				if on {
					want = "x DECIMAL(2,1)"
				}
				if got := p.schema(); !slices.Contains(got, want) {
					t.Errorf("prefersDecimal=%v: schema %v, want %s", on, got, want)
				}
			}
		}},
		{name: "primitivesAsString infers numbers and booleans as strings", options: []string{"primitivesAsString"}, run: func(t *testing.T) {
			for _, on := range []bool{true, false} {
				p := newPipe(t)
				p.write("a.json", `{"n":1,"b":true,"o":{"x":2}}`+"\n")
				p.mustRun(map[string]string{"cloudFiles.inferColumnTypes": "true", "primitivesAsString": fmt.Sprint(on)})
				want := []string{"b BOOLEAN", "n BIGINT", "o STRUCT<x: BIGINT>", "_rescued_data STRING"}
				if on {
					want = []string{"b STRING", "n STRING", "o STRUCT<x: STRING>", "_rescued_data STRING"}
				}
				if got := p.schema(); !slices.Equal(got, want) {
					t.Errorf("primitivesAsString=%v: schema %v, want %v", on, got, want)
				}
			}
		}},
		{name: "dropFieldIfAllNull leaves null-only columns out", options: []string{"dropFieldIfAllNull"}, run: func(t *testing.T) {
			for _, on := range []bool{true, false} {
				p := newPipe(t)
				p.write("a.json", `{"a":"x","n":null}`+"\n")
				p.mustRun(map[string]string{"dropFieldIfAllNull": fmt.Sprint(on)})
				if has := slices.Contains(p.schema(), "n STRING"); has == on {
					t.Errorf("dropFieldIfAllNull=%v: schema %v", on, p.schema())
				}
			}
		}},
		{name: "readerCaseSensitive false reads a differently cased field into its column", options: []string{"readerCaseSensitive"}, run: func(t *testing.T) {
			for _, sensitive := range []bool{true, false} {
				p := newPipe(t)
				p.write("a.json", `{"Name":"x"}`+"\n"+`{"name":"y"}`+"\n")
				opts := map[string]string{}
				if !sensitive {
					opts["readerCaseSensitive"] = "false"
				}
				p.mustRun(opts)
				names := p.column("Name")
				if sensitive {
					var rescued []string
					for _, r := range p.rows() {
						if r["_rescued_data"] != nil {
							rescued = append(rescued, r["_rescued_data"].(string))
						}
					}
					if !slices.Equal(names, []string{"null", "x"}) || len(rescued) != 1 || !strings.Contains(rescued[0], `"name":"y"`) {
						t.Errorf("default (case-sensitive): Name %v, rescued %v; want y rescued", names, rescued)
					}
				} else if !slices.Equal(names, []string{"x", "y"}) {
					t.Errorf("readerCaseSensitive=false: Name %v, want x and y", names)
				}
			}
		}},
		{name: "ignoreCorruptFiles keeps the 574 rows of a truncated gzip, false fails the batch", options: []string{"ignoreCorruptFiles"}, run: func(t *testing.T) {
			data, readable := truncatedGzip(t, 2000, 574)
			for _, ignore := range []bool{false, true} {
				p := newPipe(t)
				p.write("a.json", `{"id":"a"}`+"\n")
				p.writeBytes("t.json.gz", data)
				opts := map[string]string{}
				if ignore {
					opts["ignoreCorruptFiles"] = "true"
				}
				_, err := p.run(opts)
				if !ignore {
					if !errors.Is(err, ingest.ErrCorruptFile) || !strings.Contains(err.Error(), "t.json.gz") || !strings.Contains(err.Error(), "unexpected EOF") {
						t.Errorf("default: %v, want the batch failed naming t.json.gz and the reason", err)
					}
					if p.snapshot() != nil || len(listFiles(t, p.table)) != 0 {
						t.Errorf("default: the failed batch left a table or files: %v", listFiles(t, p.table))
					}
					continue
				}
				if err != nil {
					t.Fatalf("ignoreCorruptFiles=true: %v", err)
				}
				if got := len(p.rows()); got != readable+1 {
					t.Errorf("ignoreCorruptFiles=true: %d rows, want %d (the truncated file's 574 readable rows and a.json's)", got, readable+1)
				}
				if e := p.entryOf("t.json.gz"); e.State != state.Skipped || !strings.Contains(e.Error, "574 rows") {
					t.Errorf("ignoreCorruptFiles=true: state %+v, want SKIPPED with the reason", e)
				}
			}
		}},
		{name: "ignoreMissingFiles skips a file deleted after discovery, false fails the batch", options: []string{"ignoreMissingFiles"}, run: func(t *testing.T) {
			for _, ignore := range []bool{false, true} {
				p := newPipe(t)
				p.write("a.json", `{"id":"a"}`+"\n")
				gone := p.writeBytes("b.json.gz", []byte("not gzip"))
				// The first run plans both files and fails on the corrupt
				// one; deleted, it is missing when the plan is replayed.
				if _, err := p.run(nil); !errors.Is(err, ingest.ErrCorruptFile) {
					t.Fatalf("first run: %v, want the corrupt file to fail the batch", err)
				}
				if err := os.Remove(gone); err != nil {
					t.Fatal(err)
				}
				opts := map[string]string{}
				if ignore {
					opts["ignoreMissingFiles"] = "true"
				}
				_, err := p.run(opts)
				if !ignore {
					if !errors.Is(err, ingest.ErrMissingFile) || !strings.Contains(err.Error(), "b.json.gz") {
						t.Errorf("default: %v, want the batch failed naming b.json.gz", err)
					}
					if p.snapshot() != nil {
						t.Error("default: a table was committed")
					}
					continue
				}
				if err != nil {
					t.Fatalf("ignoreMissingFiles=true: %v", err)
				}
				if got := p.column("id"); !slices.Equal(got, []string{"a"}) {
					t.Errorf("ignoreMissingFiles=true: rows %v", got)
				}
				if e := p.entryOf("b.json.gz"); e.State != state.Skipped || !strings.Contains(e.Error, "deleted") {
					t.Errorf("ignoreMissingFiles=true: state %+v", e)
				}
			}
		}},
		{name: "badRecordsPath records bad records and bad files as JSON and the load goes on", options: []string{"badRecordsPath"}, run: func(t *testing.T) {
			data, readable := truncatedGzip(t, 300, 120)
			p := newPipe(t)
			p.write("a.json", `{"id":"1"}`+"\n"+`{"id":`+"\n"+`{"id":"3"}`+"\n")
			p.writeBytes("t.json.gz", data)
			bad := filepath.Join(p.root, "bad")
			sum := p.mustRun(map[string]string{"badRecordsPath": bad})
			if got := len(p.rows()); got != readable+2 {
				t.Errorf("%d rows, want %d: the malformed record left out, the truncated file's rows kept", got, readable+2)
			}
			if slices.ContainsFunc(p.schema(), func(c string) bool { return strings.HasPrefix(c, "_corrupt") }) {
				t.Errorf("schema %v has a corrupt-record column", p.schema())
			}
			files := listFiles(t, bad)
			sort.Strings(files)
			if len(files) != 2 || !regexp.MustCompile(`^\d{8}T\d{6}/bad_files/batch-0\.json$`).MatchString(files[0]) ||
				!regexp.MustCompile(`^\d{8}T\d{6}/bad_records/batch-0\.json$`).MatchString(files[1]) {
				t.Fatalf("badRecordsPath holds %v", files)
			}
			recs := jsonLines(t, filepath.Join(bad, files[1]))
			abs, _ := filepath.Abs(filepath.Join(p.src, "a.json"))
			if len(recs) != 1 || recs[0]["path"] != abs || recs[0]["record"] != `{"id":` || recs[0]["reason"] == "" {
				t.Errorf("bad_records %v, want the malformed record with its file's path and a reason", recs)
			}
			bf := jsonLines(t, filepath.Join(bad, files[0]))
			if len(bf) != 1 || !strings.HasSuffix(bf[0]["path"], "t.json.gz") || !strings.Contains(bf[0]["reason"], "unexpected EOF") {
				t.Errorf("bad_files %v", bf)
			}
			if len(sum.Batches) != 1 || sum.Batches[0].NumSkippedFiles != 1 {
				t.Errorf("batches %+v", sum.Batches)
			}
		}},
		{name: "readerCaseSensitive on xml, avro, parquet and orc: a field differing by case is rescued unless false", options: []string{"readerCaseSensitive"}, run: func(t *testing.T) {
			// A user schema whose ID column a file names id, with a rescued
			// data column.
			const avroSchema = `{"type":"record","name":"p","fields":[{"name":"id","type":"int"},{"name":"name","type":"string"}]}`
			for _, tc := range []struct {
				format, file string
				data         []byte
				opts         map[string]string
			}{
				{"xml", "a.xml", []byte("<rows><r><id>1</id><name>John</name></r></rows>"), map[string]string{"rowTag": "r"}},
				{"avro", "a.avro", []byte(avroFile(t, avroSchema, map[string]any{"id": 1, "name": "John"})), nil},
				{"parquet", "a.parquet", colfmtFixture(t, "a.parquet"), nil},
				{"orc", "a.orc", orcFixture(t, "a.orc"), nil},
			} {
				for _, sensitive := range []bool{true, false} {
					p := newPipe(t)
					p.userSchema = "ID INT, name STRING"
					p.writeBytes(tc.file, tc.data)
					opts := map[string]string{"cloudFiles.format": tc.format, "rescuedDataColumn": "_rescued_data"}
					maps.Copy(opts, tc.opts)
					if !sensitive {
						opts["readerCaseSensitive"] = "false"
					}
					p.mustRun(opts)
					ids, rescued := p.column("ID"), p.column("_rescued_data")
					if sensitive && (ids[0] != "null" || !strings.Contains(rescued[0], `"id":`)) {
						t.Errorf("%s default: ID %v, rescued %v; want id rescued", tc.format, ids, rescued)
					}
					if !sensitive && (ids[0] != "1" || slices.ContainsFunc(rescued, func(r string) bool { return strings.Contains(r, `"id"`) })) {
						t.Errorf("%s readerCaseSensitive=false: ID %v, rescued %v; want id read into ID", tc.format, ids, rescued)
					}
				}
			}
		}},
	}
}

// entryOf returns the state entry of one source file.
func (p *pipe) entryOf(rel string) state.Entry {
	p.t.Helper()
	for _, e := range p.entries() {
		if e.Path == rel {
			return e
		}
	}
	p.t.Fatalf("no state entry for %s", rel)
	return state.Entry{}
}

// truncatedGzip returns the gzip of n JSON lines cut so that exactly keep
// complete lines can be decompressed, and keep.
func truncatedGzip(t *testing.T, n, keep int) ([]byte, int) {
	t.Helper()
	var plain bytes.Buffer
	for i := 0; i < n; i++ {
		fmt.Fprintf(&plain, `{"id":"%d","v":"%d"}`+"\n", i, i*7919%1000003)
	}
	var gz bytes.Buffer
	zw := gzip.NewWriter(&gz)
	zw.Write(plain.Bytes())
	zw.Close()
	full := gz.Bytes()
	lines := func(c int) int {
		zr, err := gzip.NewReader(bytes.NewReader(full[:c]))
		if err != nil {
			return 0
		}
		out, _ := io.ReadAll(zr)
		return bytes.Count(out, []byte("\n"))
	}
	cut := sort.Search(len(full), func(c int) bool { return lines(c) > keep })
	if cut == 0 || cut == len(full) || lines(cut-1) != keep {
		t.Fatalf("cannot cut %d rows to %d readable ones", n, keep)
	}
	return full[:cut-1], keep
}

// jsonLines reads a file of JSON objects, one a line.
func jsonLines(t *testing.T, path string) []map[string]string {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var out []map[string]string
	for _, l := range strings.Split(strings.TrimSpace(string(data)), "\n") {
		var m map[string]string
		if err := json.Unmarshal([]byte(l), &m); err != nil {
			t.Fatalf("%s: %v", path, err)
		}
		out = append(out, m)
	}
	return out
}
