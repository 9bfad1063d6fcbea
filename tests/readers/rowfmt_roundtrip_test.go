package readers

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"time"
)

// rowfmtInput is one stream of TestRowFormatsRoundTrip: source files, the
// options, and the rows delta-rs must read back (JSON as read_delta.py
// renders values: decimals and dates as text, timestamps in ISO 8601,
// binary as {"binary": base64}, maps as [key, value] pairs in the file's
// order).
type rowfmtInput struct {
	name  string
	key   string            // a column read_delta.py reads from each data file
	files map[string][]byte // name -> content
	opts  []string
	want  []map[string]any
}

// TestRowFormatsRoundTrip ingests the golden inputs of the row formats
// (Avro unions, logical types and nesting; nested XML with attributes and
// namespaces; text from a Hadoop-snappy file Spark wrote; binary files)
// with the CLI, reads the tables back with delta-rs and compares every
// value with what the inputs hold, written out by hand here.
func TestRowFormatsRoundTrip(t *testing.T) {
	root := repoRoot(t)
	bin := buildCLI(t, root)
	read := func(p string) []byte {
		data, err := os.ReadFile(filepath.Join(root, p))
		if err != nil {
			t.Fatal(err)
		}
		return data
	}
	var lines []map[string]any
	for i := range 20000 {
		lines = append(lines, map[string]any{"value": fmt.Sprintf("line %d %s", i, strings.Repeat("x", i%50))})
	}
	blob := make([]byte, 256)
	for i := range blob {
		blob[i] = byte(i)
	}
	mod := time.Date(2025, 5, 6, 7, 8, 9, 0, time.UTC)
	inputs := []rowfmtInput{
		{name: "avro-logical", key: "dec", files: map[string][]byte{"l.avro": read("core/formats/avrofmt/testdata/logical.avro")}, opts: []string{"cloudFiles.format=avro"},
			want: rowsJSON(t, `[{"dec":"-123.45","decFixed":"0.0001","day":"2024-02-29","tsMillis":"2024-01-02T03:04:05.006000+00:00","tsMicros":"1969-12-31T23:59:59.999999+00:00","local":"2020-06-01T12:00:00.000001","id":"0b7e8a9c-4f1e-4c39-9d0e-6f0a1b2c3d4e","tm":3723004,"_rescued_data":null}]`)},
		{name: "avro-unions", key: "opt", files: map[string][]byte{"u.avro": read("core/formats/avrofmt/testdata/unions.avro")}, opts: []string{"cloudFiles.format=avro"},
			want: rowsJSON(t, `[
				{"opt":"a","optLast":1,"intLong":7,"floatDouble":1.5,"multi":{"member0":3,"member1":null,"member2":null},"onlyNull":null,"_rescued_data":null},
				{"opt":null,"optLast":null,"intLong":1099511627776,"floatDouble":2.25,"multi":{"member0":null,"member1":"s","member2":null},"onlyNull":null,"_rescued_data":null},
				{"opt":null,"optLast":null,"intLong":-1,"floatDouble":null,"multi":{"member0":null,"member1":null,"member2":{"x":9}},"onlyNull":null,"_rescued_data":null}]`)},
		{name: "avro-nested", key: "color", files: map[string][]byte{"n.avro": read("core/formats/avrofmt/testdata/nested.avro")}, opts: []string{"cloudFiles.format=avro"},
			want: rowsJSON(t, `[
				{"user":{"name":"ann","tags":["a","b"]},"scores":[["z",null],["m",1.0]],"color":"GREEN","raw":{"binary":"AP8="},"md5":{"binary":"AQIDBA=="},"points":[{"x":1,"y":0.5}],"flag":true,"_rescued_data":null},
				{"user":{"name":"","tags":[]},"scores":[],"color":"RED","raw":{"binary":""},"md5":{"binary":"AAAAAA=="},"points":[],"flag":false,"_rescued_data":null}]`)},
		{name: "xml-books", key: "_id", files: map[string][]byte{"b.xml": read("core/formats/xmlfmt/testdata/books.xml")}, opts: []string{"cloudFiles.format=xml", "rowTag=book", "cloudFiles.inferColumnTypes=true"},
			want: rowsJSON(t, `[
				{"_id":"bk101","_x:lang":"en","author":"Gambardella, Matthew","price":{"_VALUE":44.95,"_currency":"USD"},"publish_date":"2000-10-01","stock":null,"tags":{"tag":["xml","dev"]},"title":"XML Developer's Guide","x:note":"<b>bold</b> & more","_rescued_data":null},
				{"_id":"bk102","_x:lang":null,"author":"Ralls, Kim","price":{"_VALUE":5.95,"_currency":null},"publish_date":"2000-12-16","stock":12,"tags":{"tag":["fantasy"]},"title":"Midnight Rain","x:note":null,"_rescued_data":null},
				{"_id":"bk103","_x:lang":null,"author":null,"price":null,"publish_date":null,"stock":null,"tags":null,"title":null,"x:note":null,"_rescued_data":null}]`)},
		{name: "text-snappy", key: "value", files: map[string][]byte{"part.txt.snappy": read("core/formats/fileformat/testdata/hadoop/spark.snappy")}, opts: []string{"cloudFiles.format=text"}, want: lines},
		{name: "binary", key: "path", files: map[string][]byte{"a.bin": blob, "e.bin": {}}, opts: []string{"cloudFiles.format=binaryFile"}},
	}
	var spec readSpec
	for i := range inputs {
		in := &inputs[i]
		dir := t.TempDir()
		src, tbl := filepath.Join(dir, "src"), filepath.Join(dir, "table")
		if err := os.Mkdir(src, 0o755); err != nil {
			t.Fatal(err)
		}
		for name, data := range in.files {
			p := filepath.Join(src, name)
			if err := os.WriteFile(p, data, 0o644); err != nil {
				t.Fatal(err)
			}
			if err := os.Chtimes(p, mod, mod); err != nil {
				t.Fatal(err)
			}
			if in.name == "binary" {
				in.want = append(in.want, map[string]any{"path": p, "modificationTime": "2025-05-06T07:08:09+00:00", "length": json.Number(fmt.Sprint(len(data))), "content": map[string]any{"binary": b64(data)}})
			}
		}
		args := []string{"run", "--quiet", "--source", src, "--table", tbl, "--checkpoint", filepath.Join(dir, "ckpt")}
		for _, o := range in.opts {
			args = append(args, "--option", o)
		}
		if out, err := exec.Command(bin, args...).CombinedOutput(); err != nil {
			t.Fatalf("%s: tributary run: %v\n%s", in.name, err, out)
		}
		spec.Tables = append(spec.Tables, tableSpec{Path: tbl, Key: in.key, Probes: []probeSpec{}})
	}
	py, err := envBin(root, "pyenv.sh")
	if err != nil {
		t.Fatal(err)
	}
	out := readWith(t, root, filepath.Join(py, "python"), "deltalake", spec)
	for i, in := range inputs {
		got := out.Tables[i]
		if got.Error != "" {
			t.Errorf("%s: delta-rs: %s", in.name, got.Error)
			continue
		}
		want := make([]any, len(in.want))
		for j, r := range in.want {
			want[j] = normalize(jsonRoundTrip(t, r))
		}
		rows := make([]any, len(got.Rows))
		for j, r := range got.Rows {
			rows[j] = normalize(map[string]any(r))
		}
		sortRows(want)
		sortRows(rows)
		if d := diff(in.name, want, rows); len(d) > 0 {
			if len(d) > 10 {
				d = d[:10]
			}
			t.Errorf("%s: delta-rs reads other values than the input holds (%d rows, want %d):\n%s", in.name, len(rows), len(want), strings.Join(d, "\n"))
		}
	}
}

func rowsJSON(t *testing.T, s string) []map[string]any {
	t.Helper()
	var rows []map[string]any
	dec := json.NewDecoder(strings.NewReader(s))
	dec.UseNumber()
	if err := dec.Decode(&rows); err != nil {
		t.Fatal(err)
	}
	return rows
}

// jsonRoundTrip gives a Go value the shape decoded engine output has.
func jsonRoundTrip(t *testing.T, v any) any {
	data, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	var out any
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	if err := dec.Decode(&out); err != nil {
		t.Fatal(err)
	}
	return out
}

func sortRows(rows []any) {
	sort.Slice(rows, func(i, j int) bool { return show(rows[i]) < show(rows[j]) })
}

func b64(b []byte) string {
	return base64.StdEncoding.EncodeToString(b)
}
