package ingest

import (
	"cmp"
	"fmt"
	"slices"
	"strings"
	"testing"
)

// onePassJSONDoc is an NDJSON document of n records whose v is value(i)
// of record i (omitted when ""), about 90 bytes a record: 15,000 records
// are past the provisional schema's 1 MiB.
func onePassJSONDoc(n int, value func(i int) string) string {
	var b strings.Builder
	for i := range n {
		fmt.Fprintf(&b, `{"id":%d,"name":"name number %d xxxxxxxxxxxxxxx","o":{"a":%d,"t":"2024-01-0%dT10:00:00Z"}`, i, i, i%7, 1+i%9)
		if v := value(i); v != "" {
			fmt.Fprintf(&b, `,"v":%s`, v)
		}
		b.WriteString("}\n")
	}
	return b.String()
}

// TestOnePassJSON is TestOnePass for JSON streams, at one thread and two
// (the parallel chunk reader): a batch whose records keep the first MiB's
// types is converted once; a record past it that changes one (a long
// meeting a double, a null-only column gaining a value, a new field, a
// struct gaining a field, an array's element widening, a name in another
// case, a string that is no timestamp under inferTimestamp, a malformed
// record) makes it be inferred and converted again. The data files and
// the schema are the two-pass run's either way.
func TestOnePassJSON(t *testing.T) {
	const n = 15000
	onePassJSON = true
	defer func() { onePassJSON, onePassOptions = false, nil }()
	at := func(k int, late, early string) func(i int) string {
		return func(i int) string {
			if i == n-k {
				return late
			}
			return early
		}
	}
	ints := func(i int) string { return fmt.Sprint(i % 100) }
	for _, tt := range []struct {
		name  string
		doc   string
		opts  map[string]string
		want  string // the log line of the path taken
		typev string // in the table's schema
	}{
		{"stable", onePassJSONDoc(n, ints), nil, "schema inferred in one pass", "v:long"},
		{"small file", onePassJSONDoc(100, ints), nil, "schema inferred in one pass", "v:long"},
		{"number in a string column", onePassJSONDoc(n, at(5, "12", `"x"`)), nil, "schema inferred in one pass", "v:string"},
		{"long meets double", onePassJSONDoc(n, at(5, "2.5", "1")), nil, "one-pass schema inference abandoned", "v:double"},
		{"null in the prefix", onePassJSONDoc(n, at(5, "7", "null")), nil, "one-pass schema inference abandoned", "v:long"},
		{"absent in the prefix", onePassJSONDoc(n, at(5, `"x"`, "")), nil, "one-pass schema inference abandoned", "v:string"},
		{"struct gains a field", onePassJSONDoc(n, at(5, `{"p":1,"q":2}`, `{"p":1}`)), nil, "one-pass schema inference abandoned", "q:long"},
		{"array element widens", onePassJSONDoc(n, at(5, `[1,2.5]`, `[1]`)), nil, "one-pass schema inference abandoned", "v:array<double>"},
		{"timestamps", onePassJSONDoc(n, at(5, `"2024-05-05T00:00:00Z"`, `"2024-01-01T00:00:00Z"`)), map[string]string{"inferTimestamp": "true"},
			"schema inferred in one pass", "v:timestamp"},
		{"not a timestamp late", onePassJSONDoc(n, at(5, `"soon"`, `"2024-01-01T00:00:00Z"`)), map[string]string{"inferTimestamp": "true"},
			"one-pass schema inference abandoned", "v:string"},
		{"name in another case", strings.Replace(onePassJSONDoc(n, ints), `"v":`, `"V":`, 1) + `{"id":1,"V":2}` + "\n", nil,
			"one-pass schema inference abandoned", "V:long"},
		{"malformed late", onePassJSONDoc(n, ints) + `{"id":` + "\n", nil, "one-pass schema inference abandoned", "v:long"},
	} {
		for _, threads := range []int{1, 2} {
			t.Run(fmt.Sprintf("%s/%dt", tt.name, threads), func(t *testing.T) {
				onePassOptions = tt.opts
				sameAsTwoPasses(t, onePassRun(t, tt.doc, false, nil, threads), onePassRun(t, tt.doc, true, nil, threads), tt.want, tt.typev)
			})
		}
	}
}

// TestOnePassJSONFiles is TestOnePassFiles for JSON streams: many small
// files, files past the prefix, a later file's widening or new field,
// and a widening past sampleSize.numFiles (not sampled, not checked).
func TestOnePassJSONFiles(t *testing.T) {
	onePassJSON = true
	defer func() { onePassJSON = false }()
	ints := func(i int) string { return fmt.Sprint(i % 100) }
	many := func(k, n int, last string) []string {
		docs := slices.Repeat([]string{onePassJSONDoc(n, ints)}, k)
		docs[k-1] = cmp.Or(last, docs[k-1])
		return docs
	}
	for _, tt := range []struct {
		name     string
		docs     []string
		want     string
		typev    string
		numFiles int
	}{
		{"small files", many(30, 100, ""), "schema inferred in one pass", "v:long", 0},
		{"past the prefix", many(4, 6000, ""), "schema inferred in one pass", "v:long", 0},
		{"widens in a later file", many(40, 400, `{"v":2.5}`+"\n"), "one-pass schema inference abandoned", "v:double", 0},
		{"a later file's new field", many(40, 400, `{"w":1}`+"\n"), "one-pass schema inference abandoned", "w:long", 0},
		{"widens past numFiles", many(12, 100, `{"v":2.5}`+"\n"), "schema inferred in one pass", "v:long", 5},
	} {
		for _, threads := range []int{1, 2} {
			t.Run(fmt.Sprintf("%s/%dt", tt.name, threads), func(t *testing.T) {
				onePassSampleFiles = tt.numFiles
				defer func() { onePassSampleFiles = 0 }()
				sameAsTwoPasses(t, onePassFiles(t, tt.docs, false, nil, threads), onePassFiles(t, tt.docs, true, nil, threads), tt.want, tt.typev)
			})
		}
	}
}
