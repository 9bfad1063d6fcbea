package options_test

import (
	"bytes"
	"maps"
	"os"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/hamba/avro/v2"
	"github.com/hamba/avro/v2/ocf"
)

// rowfmtCases are the behavioural cases of the rowfmt area's options (text,
// binaryFile, avro and xml readers).
func rowfmtCases() []optionCase {
	return []optionCase{
		{name: "wholeText makes each text file one row", options: []string{"wholeText"}, run: func(t *testing.T) {
			const data = "a\nb\r\nc"
			on := rowfmtPipe(t, "text", map[string]string{"f.txt": data}, map[string]string{"wholeText": "true"})
			if got := on.column("value"); !slices.Equal(got, []string{data}) {
				t.Errorf("wholeText=true: value %q, want the whole file", got)
			}
			off := rowfmtPipe(t, "text", map[string]string{"f.txt": data}, nil)
			if got := off.column("value"); !slices.Equal(got, []string{"a", "b", "c"}) {
				t.Errorf("default: value %q, want one row per line", got)
			}
		}},
		{name: "cloudFiles.format=binaryFile reads each file as one row of Spark's schema, bytes as stored", options: []string{"cloudFiles.format"}, run: func(t *testing.T) {
			p := newPipe(t)
			raw := []byte{0x1f, 0x8b, 0, 1, 2, 0xff}
			path := p.writeBytes("d/x.gz", raw)
			p.writeBytes("d/y.bin", nil)
			mod := time.Date(2025, 5, 6, 7, 8, 9, 0, time.UTC)
			if err := os.Chtimes(path, mod, mod); err != nil {
				t.Fatal(err)
			}
			p.mustRun(map[string]string{"cloudFiles.format": "binaryFile", "pathGlobFilter": "*.gz"})
			if got := p.schema(); !slices.Equal(got, []string{"path STRING", "modificationTime TIMESTAMP", "length BIGINT", "content BINARY"}) {
				t.Errorf("schema %v", got)
			}
			rows := p.rows()
			if len(rows) != 1 {
				t.Fatalf("%d rows, want 1 (pathGlobFilter *.gz)", len(rows))
			}
			r := rows[0]
			if r["path"] != path || !bytes.Equal(r["content"].([]byte), raw) || r["length"] != int64(len(raw)) || !r["modificationTime"].(time.Time).Equal(mod) {
				t.Errorf("row %v, want path %s, the gzip bytes undecompressed, length %d, modified %v", r, path, len(raw), mod)
			}
			// The same files as text: the .gz name would be decompressed (and fail).
			q := newPipe(t)
			q.writeBytes("x.gz", raw)
			if _, err := q.run(map[string]string{"cloudFiles.format": "text"}); err == nil {
				t.Error("text on a corrupt .gz: no error, want the file unreadable (decompressed by extension)")
			}
		}},
		{name: "avroSchema gives the table schema; files' fields match it by name", options: []string{"avroSchema"}, run: func(t *testing.T) {
			const v1 = `{"type":"record","name":"p","fields":[{"name":"id","type":"int"},{"name":"name","type":"string"}]}`
			const reader = `{"type":"record","name":"p","fields":[{"name":"id","type":"long"},{"name":"name","type":"string"},{"name":"age","type":["null","int"],"default":null}]}`
			file := avroFile(t, v1, map[string]any{"id": 1, "name": "John"})
			on := rowfmtPipe(t, "avro", map[string]string{"a.avro": file}, map[string]string{"avroSchema": reader})
			if got := on.schema(); !slices.Equal(got, []string{"id BIGINT", "name STRING", "age INT", "_rescued_data STRING"}) {
				t.Errorf("avroSchema: schema %v", got)
			}
			if got := on.column("id"); !slices.Equal(got, []string{"1"}) {
				t.Errorf("avroSchema: id %v", got)
			}
			off := rowfmtPipe(t, "avro", map[string]string{"a.avro": file}, nil)
			if got := off.schema(); !slices.Equal(got, []string{"id INT", "name STRING", "_rescued_data STRING"}) {
				t.Errorf("default: schema %v, want the file's", got)
			}
			if _, err := newPipe(t).load(map[string]string{"cloudFiles.format": "avro", "avroSchema": `{"type":"record"`}); err == nil {
				t.Error("a malformed avroSchema loads")
			}
		}},
		{name: "cloudFiles.format=avro evolves the schema: a new field stops the stream once, the restart adds it", options: []string{"cloudFiles.format"}, run: func(t *testing.T) {
			const v1 = `{"type":"record","name":"p","fields":[{"name":"id","type":"int"},{"name":"name","type":"string"}]}`
			const v2 = `{"type":"record","name":"p","fields":[{"name":"id","type":"int"},{"name":"name","type":"string"},{"name":"age","type":["null","int"]}]}`
			p := newPipe(t)
			p.writeBytes("1.avro", []byte(avroFile(t, v1, map[string]any{"id": 1, "name": "John"})))
			opts := map[string]string{"cloudFiles.format": "avro"}
			p.mustRun(opts)
			p.writeBytes("2.avro", []byte(avroFile(t, v2, map[string]any{"id": 2, "name": "Bob", "age": map[string]any{"int": 25}})))
			if _, err := p.run(opts); err == nil {
				t.Fatal("a new field did not stop the stream")
			}
			p.mustRun(opts)
			if got := p.schema(); !slices.Equal(got, []string{"id INT", "name STRING", "age INT", "_rescued_data STRING"}) {
				t.Errorf("schema %v", got)
			}
			if got := p.column("age"); !slices.Equal(got, []string{"25", "null"}) {
				t.Errorf("age %v", got)
			}
		}},
		{name: "rowTag names the row element and is required for xml", options: []string{"rowTag"}, run: func(t *testing.T) {
			const doc = `<lib><book id="1"><t>A</t></book><shelf><book id="2"><t>B</t></book></shelf></lib>`
			p := rowfmtPipe(t, "xml", map[string]string{"a.xml": doc}, map[string]string{"rowTag": "book"})
			if got := p.column("t"); !slices.Equal(got, []string{"A", "B"}) {
				t.Errorf("rowTag=book: t %v", got)
			}
			q := rowfmtPipe(t, "xml", map[string]string{"a.xml": doc}, map[string]string{"rowTag": "shelf"})
			if got := q.schema(); !slices.Equal(got, []string{"book STRUCT<_id: STRING, t: STRING>", "_rescued_data STRING"}) {
				t.Errorf("rowTag=shelf: schema %v", got)
			}
			_, err := newPipe(t).load(map[string]string{"cloudFiles.format": "xml"})
			if err == nil || !strings.Contains(err.Error(), "rowTag") {
				t.Errorf("xml without rowTag: %v, want a load error naming rowTag", err)
			}
		}},
		{name: "dateFormat and timestampFormat parse XML dates and timestamps", options: []string{"dateFormat", "timestampFormat"}, run: func(t *testing.T) {
			const doc = `<rows><r><d>04/03/2021</d><ts>04/03/2021 10:20</ts></r></rows>`
			base := map[string]string{"rowTag": "r", "cloudFiles.inferColumnTypes": "true"}
			def := rowfmtPipe(t, "xml", map[string]string{"a.xml": doc}, base)
			if got := def.schema(); !slices.Equal(got, []string{"d STRING", "ts STRING", "_rescued_data STRING"}) {
				t.Errorf("without patterns: schema %v", got)
			}
			with := maps.Clone(base)
			with["dateFormat"], with["timestampFormat"] = "dd/MM/yyyy", "dd/MM/yyyy HH:mm"
			on := rowfmtPipe(t, "xml", map[string]string{"a.xml": doc}, with)
			if got := on.schema(); !slices.Equal(got, []string{"d DATE", "ts TIMESTAMP", "_rescued_data STRING"}) {
				t.Errorf("with dateFormat and timestampFormat: schema %v", got)
			}
			if got := on.column("d"); !slices.Equal(got, []string{"18690"}) {
				t.Errorf("d %v, want 18690 (2021-03-04)", got)
			}
			if got := on.column("ts"); !slices.Equal(got, []string{`"2021-03-04T10:20:00Z"`}) {
				t.Errorf("ts %q, want 2021-03-04T10:20:00Z", got)
			}
		}},
		{name: "attributePrefix and valueTag name attribute and text columns", options: []string{"attributePrefix", "valueTag"}, run: func(t *testing.T) {
			const doc = `<r><price cur="USD">5</price></r>`
			def := rowfmtPipe(t, "xml", map[string]string{"a.xml": doc}, map[string]string{"rowTag": "r"})
			if got := def.schema(); !slices.Equal(got, []string{"price STRUCT<_VALUE: STRING, _cur: STRING>", "_rescued_data STRING"}) {
				t.Errorf("defaults: schema %v", got)
			}
			on := rowfmtPipe(t, "xml", map[string]string{"a.xml": doc}, map[string]string{"rowTag": "r", "attributePrefix": "at_", "valueTag": "text"})
			if got := on.schema(); !slices.Equal(got, []string{"price STRUCT<at_cur: STRING, text: STRING>", "_rescued_data STRING"}) {
				t.Errorf("attributePrefix=at_, valueTag=text: schema %v", got)
			}
		}},
		{name: "excludeAttribute leaves attributes out", options: []string{"excludeAttribute"}, run: func(t *testing.T) {
			const doc = `<r id="1"><a>x</a></r>`
			on := rowfmtPipe(t, "xml", map[string]string{"a.xml": doc}, map[string]string{"rowTag": "r", "excludeAttribute": "true"})
			if got := on.schema(); !slices.Equal(got, []string{"a STRING", "_rescued_data STRING"}) {
				t.Errorf("excludeAttribute=true: schema %v", got)
			}
			off := rowfmtPipe(t, "xml", map[string]string{"a.xml": doc}, map[string]string{"rowTag": "r"})
			if got := off.schema(); !slices.Equal(got, []string{"_id STRING", "a STRING", "_rescued_data STRING"}) {
				t.Errorf("default: schema %v", got)
			}
		}},
		{name: "ignoreSurroundingSpaces keeps or drops white space around values", options: []string{"ignoreSurroundingSpaces"}, run: func(t *testing.T) {
			const doc = "<r><a>  x  </a></r>"
			off := rowfmtPipe(t, "xml", map[string]string{"a.xml": doc}, map[string]string{"rowTag": "r", "ignoreSurroundingSpaces": "false"})
			if got := off.column("a"); !slices.Equal(got, []string{"  x  "}) {
				t.Errorf("ignoreSurroundingSpaces=false: %q", got)
			}
			def := rowfmtPipe(t, "xml", map[string]string{"a.xml": doc}, map[string]string{"rowTag": "r"})
			if got := def.column("a"); !slices.Equal(got, []string{"x"}) {
				t.Errorf("default: %q", got)
			}
		}},
		{name: "ignoreNamespace drops name prefixes", options: []string{"ignoreNamespace"}, run: func(t *testing.T) {
			const doc = `<r xmlns:p="urn:p"><p:title>T</p:title></r>`
			on := rowfmtPipe(t, "xml", map[string]string{"a.xml": doc}, map[string]string{"rowTag": "r", "ignoreNamespace": "true"})
			if got := on.column("title"); !slices.Equal(got, []string{"T"}) {
				t.Errorf("ignoreNamespace=true: title %v (schema %v)", got, on.schema())
			}
			off := rowfmtPipe(t, "xml", map[string]string{"a.xml": doc}, map[string]string{"rowTag": "r"})
			if got := off.column("p:title"); !slices.Equal(got, []string{"T"}) {
				t.Errorf("default: p:title %v (schema %v)", got, off.schema())
			}
		}},
		{name: "xml honours nullValue, mode and cloudFiles.inferColumnTypes", options: []string{"nullValue", "mode", "cloudFiles.inferColumnTypes"}, run: func(t *testing.T) {
			const doc = "<r><n>1</n><s>NA</s></r>\n<r><n>2</x></r>\n"
			p := rowfmtPipe(t, "xml", map[string]string{"a.xml": doc}, map[string]string{"rowTag": "r", "nullValue": "NA", "cloudFiles.inferColumnTypes": "true"})
			if got := p.schema(); !slices.Equal(got, []string{"n BIGINT", "s STRING", "_corrupt_record STRING", "_rescued_data STRING"}) {
				t.Errorf("schema %v", got)
			}
			if got := p.column("s"); !slices.Equal(got, []string{"null", "null"}) {
				t.Errorf("nullValue=NA: s %v", got)
			}
			if got := p.column("_corrupt_record"); !slices.Equal(got, []string{"<r><n>2</x></r>", "null"}) {
				t.Errorf("PERMISSIVE: _corrupt_record %v", got)
			}
			d := rowfmtPipe(t, "xml", map[string]string{"a.xml": doc}, map[string]string{"rowTag": "r", "mode": "DROPMALFORMED"})
			if got := d.column("n"); !slices.Equal(got, []string{"1"}) {
				t.Errorf("DROPMALFORMED: n %v", got)
			}
		}},
		{name: "ignoreCorruptFiles skips a truncated Avro file, keeping the records read before the corruption", options: []string{"ignoreCorruptFiles"}, run: func(t *testing.T) {
			const v1 = `{"type":"record","name":"p","fields":[{"name":"id","type":"int"},{"name":"name","type":"string"}]}`
			var recs []map[string]any
			for i := range 300 {
				recs = append(recs, map[string]any{"id": i, "name": strings.Repeat("n", 100)})
			}
			good := avroFile(t, v1, recs[:1]...)
			bad := avroFile(t, v1, recs...)
			bad = bad[:len(bad)-40]
			p := newPipe(t)
			p.writeBytes("a.avro", []byte(good))
			p.writeBytes("b.avro", []byte(bad))
			if _, err := p.run(map[string]string{"cloudFiles.format": "avro"}); err == nil || !strings.Contains(err.Error(), "b.avro") {
				t.Errorf("truncated avro without ignoreCorruptFiles: %v, want a failure naming b.avro", err)
			}
			q := newPipe(t)
			q.writeBytes("a.avro", []byte(good))
			q.writeBytes("b.avro", []byte(bad))
			q.mustRun(map[string]string{"cloudFiles.format": "avro", "ignoreCorruptFiles": "true"})
			if n := len(q.rows()); n < 2 || n >= 301 {
				t.Errorf("ignoreCorruptFiles=true: %d rows, want a.avro's row and b.avro's blocks before the corruption", n)
			}
		}},
		{name: "mergeSchema=false (avro) takes the first sampled file's schema; by default Avro schemas merge", options: []string{"mergeSchema"}, run: func(t *testing.T) {
			const v1 = `{"type":"record","name":"p","fields":[{"name":"id","type":"int"}]}`
			const v2 = `{"type":"record","name":"p","fields":[{"name":"id","type":"int"},{"name":"age","type":"int"}]}`
			files := map[string]string{"1.avro": avroFile(t, v1, map[string]any{"id": 1}), "2.avro": avroFile(t, v2, map[string]any{"id": 2, "age": 30})}
			// rescue mode: a column the schema lacks is rescued, not added.
			def := rowfmtPipe(t, "avro", files, map[string]string{"cloudFiles.schemaEvolutionMode": "rescue"})
			if got := def.schema(); !slices.Equal(got, []string{"id INT", "age INT", "_rescued_data STRING"}) {
				t.Errorf("default: schema %v, want both files' fields", got)
			}
			first := newPipe(t)
			for name, content := range files {
				first.writeBytes(name, []byte(content))
			}
			first.mustRun(map[string]string{"cloudFiles.format": "avro", "mergeSchema": "false", "cloudFiles.schemaEvolutionMode": "rescue"})
			if got := first.schema(); !slices.Equal(got, []string{"id INT", "_rescued_data STRING"}) {
				t.Errorf("mergeSchema=false: schema %v, want 1.avro's", got)
			}
			if got := first.column("_rescued_data"); len(got) != 2 || !strings.Contains(got[0]+got[1], `"age":30`) {
				t.Errorf("mergeSchema=false: _rescued_data %v, want 2.avro's age rescued", got)
			}
		}},
		{name: "prefersDecimal infers an XML number with a fraction as DECIMAL", options: []string{"prefersDecimal"}, run: func(t *testing.T) {
			const doc = `<rows><r><x>1.5</x></r></rows>`
			base := map[string]string{"rowTag": "r", "cloudFiles.inferColumnTypes": "true"}
			if got := rowfmtPipe(t, "xml", map[string]string{"a.xml": doc}, base).schema(); !slices.Contains(got, "x DOUBLE") {
				t.Errorf("default: schema %v, want x DOUBLE", got)
			}
			on := maps.Clone(base)
			on["prefersDecimal"] = "true"
			p := rowfmtPipe(t, "xml", map[string]string{"a.xml": doc}, on)
			if got := p.schema(); !slices.Contains(got, "x DECIMAL(2,1)") {
				t.Errorf("prefersDecimal=true: schema %v, want x DECIMAL(2,1)", got)
			}
			if got, r := p.column("x"), p.column("_rescued_data"); !slices.Equal(got, []string{`{"Unscaled":15,"Scale":1}`}) || r[0] != "null" {
				t.Errorf("prefersDecimal=true: x %v, rescued %v; want 1.5 read", got, r)
			}
		}},
		{name: "xml excludeAttribute on the read; nullValue on attributes and in inference", options: []string{"excludeAttribute", "nullValue"}, run: func(t *testing.T) {
			p := rowfmtPipe(t, "xml", map[string]string{"a.xml": `<r id="1"><a>x</a></r>`}, map[string]string{"rowTag": "r", "excludeAttribute": "true"})
			if got := p.column("_rescued_data"); !slices.Equal(got, []string{"null"}) {
				t.Errorf("excludeAttribute=true: rescued %v, want the attribute left out, not rescued", got)
			}
			const doc = `<rows><r id="NA"><n>NA</n></r><r id="NA"><n>1</n></r></rows>`
			opts := map[string]string{"rowTag": "r", "nullValue": "NA", "cloudFiles.inferColumnTypes": "true"}
			q := rowfmtPipe(t, "xml", map[string]string{"a.xml": doc}, opts)
			if got := q.schema(); !slices.Equal(got, []string{"_id STRING", "n BIGINT", "_rescued_data STRING"}) {
				t.Errorf("nullValue=NA: schema %v, want _id STRING (null only), n BIGINT", got)
			}
			if got := q.column("_id"); !slices.Equal(got, []string{"null", "null"}) {
				t.Errorf("nullValue=NA: _id %v, want null", got)
			}
			// An element of a struct column holding only the nullValue is a
			// null struct.
			st := rowfmtPipe(t, "xml", map[string]string{"a.xml": `<rows><r><p><a>x</a></p></r><r><p>NA</p></r></rows>`}, map[string]string{"rowTag": "r", "nullValue": "NA"})
			if got := st.column("p"); len(got) != 2 || got[1] != "null" {
				t.Errorf("nullValue=NA: p %v, want a struct and null", got)
			}
		}},
		{name: "attributePrefix and valueTag on the read: values land in the renamed columns", options: []string{"attributePrefix", "valueTag"}, run: func(t *testing.T) {
			const doc = `<r><price cur="USD">5</price></r>`
			p := rowfmtPipe(t, "xml", map[string]string{"a.xml": doc}, map[string]string{"rowTag": "r", "attributePrefix": "at_", "valueTag": "text"})
			if got := p.column("price"); !slices.Equal(got, []string{`["USD","5"]`}) {
				t.Errorf("attributePrefix=at_, valueTag=text: price %v, want at_cur USD and text 5", got)
			}
			if got := p.column("_rescued_data"); !slices.Equal(got, []string{"null"}) {
				t.Errorf("attributePrefix=at_, valueTag=text: rescued %v, want nothing", got)
			}
		}},
		{name: "xml mode on the read: FAILFAST fails on a malformed or unconvertible record, DROPMALFORMED drops it, PERMISSIVE keeps it", options: []string{"mode"}, run: func(t *testing.T) {
			// A user schema: no inference, so only the read sees the records.
			read := func(doc, mode string) (*pipe, error) {
				p := newPipe(t)
				p.userSchema = "n BIGINT"
				p.write("a.xml", doc)
				opts := map[string]string{"cloudFiles.format": "xml", "rowTag": "r"}
				if mode != "" {
					opts["mode"] = mode
				}
				_, err := p.run(opts)
				return p, err
			}
			for _, doc := range []string{"<r><n>1</n></r>\n<r><n>2</x></r>\n", "<r><n>1</n></r>\n<r><n>x</n></r>\n"} {
				if _, err := read(doc, "FAILFAST"); err == nil || !strings.Contains(err.Error(), "a.xml line 2") {
					t.Errorf("FAILFAST on %q: %v, want the read to fail at a.xml line 2", doc, err)
				}
				p, err := read(doc, "DROPMALFORMED")
				if err != nil {
					t.Fatalf("DROPMALFORMED on %q: %v", doc, err)
				}
				if got := p.column("n"); !slices.Equal(got, []string{"1"}) {
					t.Errorf("DROPMALFORMED on %q: n %v, want the bad record dropped", doc, got)
				}
				p, err = read(doc, "")
				if err != nil {
					t.Fatalf("PERMISSIVE on %q: %v", doc, err)
				}
				if got := p.column("n"); !slices.Equal(got, []string{"1", "null"}) {
					t.Errorf("PERMISSIVE on %q: n %v, want the bad record kept with a null", doc, got)
				}
			}
		}},
		{name: "xml mode in inference: FAILFAST fails the inference, DROPMALFORMED adds no corrupt-record column", options: []string{"mode"}, run: func(t *testing.T) {
			const doc = "<r><n>1</n></r>\n<r><n>2</x></r>\n"
			p := newPipe(t)
			p.write("a.xml", doc)
			if _, err := p.run(map[string]string{"cloudFiles.format": "xml", "rowTag": "r", "mode": "FAILFAST"}); err == nil || !strings.Contains(err.Error(), "schema inference") || !strings.Contains(err.Error(), "a.xml line 2") {
				t.Errorf("FAILFAST: %v, want the schema inference to fail at a.xml line 2", err)
			}
			d := rowfmtPipe(t, "xml", map[string]string{"a.xml": doc}, map[string]string{"rowTag": "r", "mode": "DROPMALFORMED"})
			if got := d.schema(); !slices.Equal(got, []string{"n STRING", "_rescued_data STRING"}) {
				t.Errorf("DROPMALFORMED: schema %v, want no _corrupt_record", got)
			}
		}},
		{name: "ignoreSurroundingSpaces in inference and on attribute values", options: []string{"ignoreSurroundingSpaces"}, run: func(t *testing.T) {
			const doc = `<rows><r k=" 1 "><n> 2 </n></r><r k="3"><n>4</n></r></rows>`
			opts := map[string]string{"rowTag": "r", "cloudFiles.inferColumnTypes": "true"}
			def := rowfmtPipe(t, "xml", map[string]string{"a.xml": doc}, opts)
			if got := def.schema(); !slices.Equal(got, []string{"_k BIGINT", "n BIGINT", "_rescued_data STRING"}) {
				t.Errorf("default: schema %v, want the trimmed values typed", got)
			}
			if k, n, r := def.column("_k"), def.column("n"), def.column("_rescued_data"); !slices.Equal(k, []string{"1", "3"}) || !slices.Equal(n, []string{"2", "4"}) || !slices.Equal(r, []string{"null", "null"}) {
				t.Errorf("default: _k %v, n %v, rescued %v; want 1 3, 2 4, nothing rescued", k, n, r)
			}
			off := maps.Clone(opts)
			off["ignoreSurroundingSpaces"] = "false"
			p := rowfmtPipe(t, "xml", map[string]string{"a.xml": doc}, off)
			if got := p.schema(); !slices.Equal(got, []string{"_k STRING", "n STRING", "_rescued_data STRING"}) {
				t.Errorf("ignoreSurroundingSpaces=false: schema %v, want strings (\" 1 \" is no number to Spark)", got)
			}
			if k, n := p.column("_k"), p.column("n"); !slices.Equal(k, []string{" 1 ", "3"}) || !slices.Equal(n, []string{" 2 ", "4"}) {
				t.Errorf("ignoreSurroundingSpaces=false: _k %q, n %q; want the values as written", k, n)
			}
		}},
		{name: "ignoreNamespace drops attribute prefixes; valueTag names the text of a value merged with a struct", options: []string{"ignoreNamespace", "valueTag"}, run: func(t *testing.T) {
			const doc = `<r xmlns:p="urn:p" p:id="1"><a>x</a></r>`
			on := rowfmtPipe(t, "xml", map[string]string{"a.xml": doc}, map[string]string{"rowTag": "r", "ignoreNamespace": "true"})
			if got := on.schema(); !slices.Equal(got, []string{"_id STRING", "a STRING", "_rescued_data STRING"}) {
				t.Errorf("ignoreNamespace=true: schema %v, want _id", got)
			}
			off := rowfmtPipe(t, "xml", map[string]string{"a.xml": doc}, map[string]string{"rowTag": "r"})
			if got := off.schema(); !slices.Equal(got, []string{"_p:id STRING", "a STRING", "_rescued_data STRING"}) {
				t.Errorf("default: schema %v, want _p:id", got)
			}
			// <p>1</p> in one row, <p k="a">2</p> in another: p is a struct
			// whose valueTag field holds both texts.
			v := rowfmtPipe(t, "xml", map[string]string{"a.xml": `<rows><r><p>1</p></r><r><p k="a">2</p></r></rows>`}, map[string]string{"rowTag": "r", "valueTag": "text"})
			if got := v.schema(); !slices.Equal(got, []string{"p STRUCT<_k: STRING, text: STRING>", "_rescued_data STRING"}) {
				t.Errorf("valueTag=text: schema %v", got)
			}
			if got := v.column("p"); !slices.Equal(got, []string{`["a","2"]`, `[null,"1"]`}) {
				t.Errorf("valueTag=text: p %v, want both texts in text", got)
			}
		}},
	}
}

// avroFile encodes records as an Avro object container file (deflate).
func avroFile(t *testing.T, schemaJSON string, records ...map[string]any) string {
	t.Helper()
	var buf bytes.Buffer
	enc, err := ocf.NewEncoder(schemaJSON, &buf, ocf.WithCodec(ocf.Deflate), ocf.WithEncoderSchemaCache(&avro.SchemaCache{}))
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range records {
		if err := enc.Encode(r); err != nil {
			t.Fatal(err)
		}
	}
	if err := enc.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.String()
}

// rowfmtPipe ingests files (name -> content) with cloudFiles.format=format
// and opts, and returns the pipe.
func rowfmtPipe(t *testing.T, format string, files map[string]string, opts map[string]string) *pipe {
	t.Helper()
	p := newPipe(t)
	for name, content := range files {
		p.writeBytes(name, []byte(content))
	}
	all := map[string]string{"cloudFiles.format": format}
	for k, v := range opts {
		all[k] = v
	}
	p.mustRun(all)
	return p
}
