package options_test

import (
	"errors"
	"fmt"
	"maps"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/tributary-io/tributary/core/formats"
	"github.com/tributary-io/tributary/core/formats/csvfmt"
)

// csvCases are the behavioural cases of the CSV reader options (owner:
// helper csv). Each compares a run with the option against the same input
// without it, or asserts Spark's documented effect.
func csvCases() []optionCase {
	return []optionCase{
		{name: "header names the columns from the first line", options: []string{"header"}, run: func(t *testing.T) {
			on := csvPipe(t, "id,name\n1,a\n", map[string]string{"header": "true"})
			if got := on.schema(); !slices.Equal(got, []string{"id STRING", "name STRING", "_rescued_data STRING"}) || len(on.rows()) != 1 {
				t.Errorf("header=true: schema %v, %d rows", got, len(on.rows()))
			}
			off := csvPipe(t, "id,name\n1,a\n", nil)
			if got := off.schema(); !slices.Equal(got, []string{"_c0 STRING", "_c1 STRING", "_rescued_data STRING"}) || len(off.rows()) != 2 {
				t.Errorf("header=false: schema %v, %d rows", got, len(off.rows()))
			}
		}},
		{name: "sep (alias delimiter) splits values", options: []string{"sep"}, run: func(t *testing.T) {
			for _, key := range []string{"sep", "delimiter"} {
				p := csvPipe(t, "a;b\n1;2\n", map[string]string{"header": "true", key: ";"})
				if got := p.column("b"); !slices.Equal(got, []string{"2"}) {
					t.Errorf("%s=;: b %v, want 2", key, got)
				}
			}
			p := csvPipe(t, "a;b\n1;2\n", map[string]string{"header": "true"})
			if got := p.column("a;b"); !slices.Equal(got, []string{"1;2"}) {
				t.Errorf("default sep: column a;b %v", got)
			}
			tab := csvPipe(t, "a\tb\n1\t2\n", map[string]string{"header": "true", "sep": `\t`})
			if got := tab.column("b"); !slices.Equal(got, []string{"2"}) {
				t.Errorf(`sep=\t: b %v`, got)
			}
		}},
		{name: "quote sets the quote character", options: []string{"quote"}, run: func(t *testing.T) {
			on := csvPipe(t, "v,w\n'x,y',z\n", map[string]string{"header": "true", "quote": "'"})
			off := csvPipe(t, "v,w\n'x,y',z\n", map[string]string{"header": "true"})
			if got := on.column("v"); !slices.Equal(got, []string{"x,y"}) {
				t.Errorf("quote=': v %v, want x,y", got)
			}
			if got := off.column("v"); !slices.Equal(got, []string{"'x"}) {
				t.Errorf("default quote: v %v, want 'x", got)
			}
		}},
		{name: "escape sets the character that escapes a quote", options: []string{"escape"}, run: func(t *testing.T) {
			on := csvPipe(t, "v,w\n\"a'\"b\",c\n", map[string]string{"header": "true", "escape": "'"})
			if got := on.column("v"); !slices.Equal(got, []string{`a"b`}) {
				t.Errorf("escape=': v %v, want a\"b", got)
			}
			off := csvPipe(t, "v,w\n\"a'\"b\",c\n", map[string]string{"header": "true"})
			if got := off.column("v"); !slices.Equal(got, []string{`a'"b"`}) {
				t.Errorf("default escape: v %v, want a'\"b\" (an unescaped quote)", got)
			}
		}},
		{name: "charToEscapeQuoteEscaping escapes the escape before a quote", options: []string{"charToEscapeQuoteEscaping"}, run: func(t *testing.T) {
			const data = "v,w\n\"a#\\\",b\n"
			on := csvPipe(t, data, map[string]string{"header": "true", "charToEscapeQuoteEscaping": "#"})
			if got := on.column("v"); !slices.Equal(got, []string{`a\`}) {
				t.Errorf("charToEscapeQuoteEscaping=#: v %v, want a\\", got)
			}
			off := csvPipe(t, data, map[string]string{"header": "true"})
			if got := off.column("v"); !slices.Equal(got, []string{`a#",b`}) {
				t.Errorf("default: v %v, want a#\",b (the quote escaped)", got)
			}
		}},
		{name: "comment skips lines starting with the character", options: []string{"comment"}, run: func(t *testing.T) {
			on := csvPipe(t, "v\n#note\nx\n", map[string]string{"header": "true", "comment": "#"})
			off := csvPipe(t, "v\n#note\nx\n", map[string]string{"header": "true"})
			if got := on.column("v"); !slices.Equal(got, []string{"x"}) {
				t.Errorf("comment=#: %v", got)
			}
			if got := off.column("v"); !slices.Equal(got, []string{"#note", "x"}) {
				t.Errorf("no comment: %v", got)
			}
		}},
		{name: "nullValue and emptyValue", options: []string{"nullValue", "emptyValue"}, run: func(t *testing.T) {
			const data = "v\nNA\n\"\"\n"
			def := csvPipe(t, data, map[string]string{"header": "true"})
			if got := def.column("v"); !slices.Equal(got, []string{"NA", "null"}) {
				t.Errorf("defaults: %v, want NA and null", got)
			}
			nv := csvPipe(t, data, map[string]string{"header": "true", "nullValue": "NA"})
			if got := nv.column("v"); !slices.Equal(got, []string{"", "null"}) {
				t.Errorf("nullValue=NA: %q, want null and the empty string", got)
			}
			ev := csvPipe(t, data, map[string]string{"header": "true", "emptyValue": "EMPTY"})
			if got := ev.column("v"); !slices.Equal(got, []string{"EMPTY", "NA"}) {
				t.Errorf("emptyValue=EMPTY: %v", got)
			}
		}},
		{name: "nanValue, positiveInf and negativeInf read special doubles", options: []string{"nanValue", "positiveInf", "negativeInf"}, run: func(t *testing.T) {
			const data = "x\nnan\n+inf\n-inf\n"
			opts := map[string]string{"header": "true", "cloudFiles.schemaHints": "x DOUBLE"}
			off := csvPipe(t, data, opts)
			if got := off.column("x"); !slices.Equal(got, []string{"null", "null", "null"}) {
				t.Errorf("defaults: %v, want all rescued", got)
			}
			on := maps.Clone(opts)
			maps.Copy(on, map[string]string{"nanValue": "nan", "positiveInf": "+inf", "negativeInf": "-inf"})
			p := csvPipe(t, data, on)
			if got := p.column("x"); !slices.Equal(got, []string{"+Inf", "-Inf", "NaN"}) {
				t.Errorf("custom: %v, want NaN, +Inf, -Inf", got)
			}
		}},
		{name: "enforceSchema false fails a file whose header does not match the schema", options: []string{"enforceSchema"}, run: func(t *testing.T) {
			opts := map[string]string{"header": "true", "cloudFiles.schemaEvolutionMode": "none"}
			p := newPipe(t)
			p.write("a.csv", "id,name\n1,a\n")
			p.write("b.csv", "name,id\nb,2\n")
			p.mustRun(withCSV(opts))
			if got := p.column("id"); !slices.Equal(got, []string{"1", "b"}) {
				t.Errorf("enforceSchema=true: id %v, want the schema applied by position", got)
			}
			q := newPipe(t)
			q.write("a.csv", "id,name\n1,a\n")
			q.write("b.csv", "name,id\nb,2\n")
			strict := maps.Clone(opts)
			strict["enforceSchema"] = "false"
			_, err := q.run(withCSV(strict))
			if err == nil || !strings.Contains(err.Error(), csvfmt.ErrHeaderMismatch.Error()) || !strings.Contains(err.Error(), "b.csv") {
				t.Errorf("enforceSchema=false: %v, want a header mismatch naming b.csv", err)
			}
		}},
		{name: "ignoreLeadingWhiteSpace and ignoreTrailingWhiteSpace trim values", options: []string{"ignoreLeadingWhiteSpace", "ignoreTrailingWhiteSpace"}, run: func(t *testing.T) {
			const data = "v\n  x  \n"
			for _, tc := range []struct {
				opts map[string]string
				want string
			}{
				{nil, "  x  "},
				{map[string]string{"ignoreLeadingWhiteSpace": "true"}, "x  "},
				{map[string]string{"ignoreTrailingWhiteSpace": "true"}, "  x"},
			} {
				opts := map[string]string{"header": "true"}
				maps.Copy(opts, tc.opts)
				if got := csvPipe(t, data, opts).column("v"); !slices.Equal(got, []string{tc.want}) {
					t.Errorf("%v: %q, want %q", tc.opts, got, tc.want)
				}
			}
		}},
		{name: "maxColumns and maxCharsPerColumn fail the file", options: []string{"maxColumns", "maxCharsPerColumn"}, run: func(t *testing.T) {
			for _, o := range []map[string]string{{"maxColumns": "2"}, {"maxCharsPerColumn": "3"}} {
				p := newPipe(t)
				p.write("a.csv", "a,b,c\n1,2,3456\n")
				_, err := p.run(withCSV(o))
				var name string
				for k := range o {
					name = k
				}
				if err == nil || !strings.Contains(err.Error(), csvfmt.ErrLimit.Error()) || !strings.Contains(err.Error(), "a.csv") || !strings.Contains(err.Error(), name) {
					t.Errorf("%v: %v, want a limit error naming a.csv and %s", o, err, name)
				}
				if p.snapshot() != nil {
					t.Errorf("%v: a table was committed", o)
				}
			}
			p := newPipe(t)
			p.write("a.csv", "a,b,c\n1,2,3456\n")
			p.mustRun(withCSV(map[string]string{"maxColumns": "3", "maxCharsPerColumn": "4"}))
		}},
		{name: "unescapedQuoteHandling decides what a stray quote does", options: []string{"unescapedQuoteHandling"}, run: func(t *testing.T) {
			const data = "v,w\na\"b,c\n"
			def := csvPipe(t, data, map[string]string{"header": "true"})
			if got := def.column("v"); !slices.Equal(got, []string{`a"b`}) {
				t.Errorf("STOP_AT_DELIMITER: %v", got)
			}
			skip := csvPipe(t, data, map[string]string{"header": "true", "unescapedQuoteHandling": "SKIP_VALUE"})
			if got := skip.column("v"); !slices.Equal(got, []string{"null"}) {
				t.Errorf("SKIP_VALUE: %v", got)
			}
			p := newPipe(t)
			p.write("a.csv", data)
			_, err := p.run(withCSV(map[string]string{"header": "true", "unescapedQuoteHandling": "RAISE_ERROR", "mode": "FAILFAST"}))
			if err == nil || !strings.Contains(err.Error(), "a.csv line 2") {
				t.Errorf("RAISE_ERROR + FAILFAST: %v, want a failure naming a.csv line 2", err)
			}
		}},
		{name: "preferDate infers yyyy-MM-dd as DATE, false as TIMESTAMP", options: []string{"preferDate"}, run: func(t *testing.T) {
			for _, on := range []bool{true, false} {
				opts := map[string]string{"header": "true", "cloudFiles.inferColumnTypes": "true"}
				if !on {
					opts["preferDate"] = "false"
				}
				want := "d DATE"
				if !on {
					want = "d TIMESTAMP"
				}
				if got := csvPipe(t, "d\n2024-01-31\n", opts).schema(); !slices.Contains(got, want) {
					t.Errorf("preferDate=%v: %v, want %s", on, got, want)
				}
			}
		}},
		{name: "skipRows skips the first lines of every file", options: []string{"skipRows"}, run: func(t *testing.T) {
			const data = "exported by X\n\nid,name\n1,a\n"
			p := csvPipe(t, data, map[string]string{"header": "true", "skipRows": "2"})
			if got := p.column("name"); !slices.Equal(got, []string{"a"}) {
				t.Errorf("skipRows=2: name %v (schema %v)", got, p.schema())
			}
			q := csvPipe(t, data, map[string]string{"header": "true"})
			if slices.Contains(q.schema(), "name STRING") {
				t.Errorf("without skipRows the first line is the header: %v", q.schema())
			}
		}},
		{name: "encoding decodes CSV files (UTF-16 with a byte order mark, no lineSep needed)", options: []string{"encoding"}, run: func(t *testing.T) {
			var b []byte
			b = append(b, 0xFF, 0xFE)
			for _, r := range "id,name\r\n1,Zoë\r\n" {
				b = append(b, byte(r), byte(r>>8))
			}
			p := newPipe(t)
			p.writeBytes("a.csv", b)
			p.mustRun(withCSV(map[string]string{"header": "true", "encoding": "UTF-16"}))
			if got := p.column("name"); !slices.Equal(got, []string{"Zoë"}) {
				t.Errorf("encoding=UTF-16: name %q", got)
			}
			q := newPipe(t)
			q.writeBytes("a.csv", b)
			q.mustRun(withCSV(map[string]string{"header": "true"}))
			if slices.Contains(q.schema(), "name STRING") {
				t.Errorf("read as UTF-8 the header is not id,name: %v", q.schema())
			}
		}},
		{name: "mode and columnNameOfCorruptRecord apply to CSV records", options: []string{"mode", "columnNameOfCorruptRecord"}, run: func(t *testing.T) {
			const data = "id,name\n1,a\n2\n"
			p := newPipe(t)
			p.userSchema = "id INT, name STRING, _bad STRING"
			p.write("a.csv", data)
			p.mustRun(withCSV(map[string]string{"header": "true", "columnNameOfCorruptRecord": "_bad"}))
			if got := p.column("_bad"); !slices.Equal(got, []string{"2", "null"}) {
				t.Errorf("PERMISSIVE: _bad %v, want the short record's text", got)
			}
			d := csvPipe(t, data, map[string]string{"header": "true", "mode": "DROPMALFORMED"})
			if n := len(d.rows()); n != 1 {
				t.Errorf("DROPMALFORMED: %d rows, want 1", n)
			}
			f := newPipe(t)
			f.write("a.csv", data)
			if _, err := f.run(withCSV(map[string]string{"header": "true", "mode": "FAILFAST"})); err == nil || !strings.Contains(err.Error(), "a.csv line 3") {
				t.Errorf("FAILFAST: %v, want a failure naming a.csv line 3", err)
			}
		}},
		{name: "parserCaseSensitive false matches a header to a column that differs by case", options: []string{"parserCaseSensitive"}, run: func(t *testing.T) {
			for _, sensitive := range []bool{true, false} {
				p := newPipe(t)
				p.write("a.csv", "name\nx\n")
				p.mustRun(withCSV(map[string]string{"header": "true"}))
				p.write("b.csv", "NAME\ny\n")
				opts := map[string]string{"header": "true", "cloudFiles.schemaEvolutionMode": "rescue"}
				if !sensitive {
					opts["parserCaseSensitive"] = "false"
				}
				p.mustRun(withCSV(opts))
				want := []string{"null", "x"}
				if !sensitive {
					want = []string{"x", "y"}
				}
				if got := p.column("name"); !slices.Equal(got, want) {
					t.Errorf("parserCaseSensitive=%v: name %v, want %v", sensitive, got, want)
				}
			}
			q := newPipe(t)
			if _, err := q.run(withCSV(map[string]string{"parserCaseSensitive": "false", "readerCaseSensitive": "true"})); err == nil || !strings.Contains(err.Error(), "contradicts") {
				t.Errorf("contradicting readerCaseSensitive: %v", err)
			}
		}},
		{name: "multiLine lets a quoted value span lines", options: []string{"multiLine"}, run: func(t *testing.T) {
			const data = "v,w\n\"a\nb\",c\n"
			on := csvPipe(t, data, map[string]string{"header": "true", "multiLine": "true"})
			if got := on.column("v"); !slices.Equal(got, []string{"a\nb"}) {
				t.Errorf("multiLine=true: %q", got)
			}
			off := csvPipe(t, data, map[string]string{"header": "true"})
			if n := len(off.rows()); n != 2 {
				t.Errorf("multiLine=false: %d rows, want 2 (records are lines)", n)
			}
		}},
		{name: "unescapedQuoteHandling decides what a quote inside a quoted value does", options: []string{"unescapedQuoteHandling"}, run: func(t *testing.T) {
			const data = "v,w\n\"a\"b\",c\nx,y\n"
			for h, want := range map[string]string{
				"":                      `a"b"`, // STOP_AT_DELIMITER
				"BACK_TO_DELIMITER":     `"a"b"`,
				"STOP_AT_CLOSING_QUOTE": `a"b`,
				"SKIP_VALUE":            "null",
			} {
				opts := map[string]string{"header": "true"}
				if h != "" {
					opts["unescapedQuoteHandling"] = h
				}
				p := csvPipe(t, data, opts)
				if got := p.column("v"); !slices.Equal(got, []string{want, "x"}) {
					t.Errorf("%s: v %q, want %q and x", h, got, want)
				}
			}
			// RAISE_ERROR makes the record malformed (a user schema: no
			// inference, the reader sees it).
			p := newPipe(t)
			p.userSchema = "v STRING, w STRING, _corrupt_record STRING"
			p.write("a.csv", data)
			p.mustRun(withCSV(map[string]string{"header": "true", "unescapedQuoteHandling": "RAISE_ERROR"}))
			if got := p.column("_corrupt_record"); !slices.Equal(got, []string{"\"a\"b\",c", "null"}) {
				t.Errorf("RAISE_ERROR: _corrupt_record %q, want the record's text", got)
			}
		}},
		{name: "ignoreLeadingWhiteSpace and ignoreTrailingWhiteSpace trim on every tokenizer path", options: []string{"ignoreLeadingWhiteSpace", "ignoreTrailingWhiteSpace"}, run: func(t *testing.T) {
			// A short line (split with bitmaps), a line over 4 KiB (split
			// byte by byte) and a line with a quote in an unquoted value
			// (read rune by rune).
			data := "v,w\n  x  ,1\n  y  ," + strings.Repeat("z", 5000) + "\n  q  ,a\"b\n"
			for _, tc := range []struct {
				opts map[string]string
				want []string
			}{
				{nil, []string{"  q  ", "  x  ", "  y  "}},
				{map[string]string{"ignoreLeadingWhiteSpace": "true"}, []string{"q  ", "x  ", "y  "}},
				{map[string]string{"ignoreTrailingWhiteSpace": "true"}, []string{"  q", "  x", "  y"}},
			} {
				opts := map[string]string{"header": "true"}
				maps.Copy(opts, tc.opts)
				if got := csvPipe(t, data, opts).column("v"); !slices.Equal(got, tc.want) {
					t.Errorf("%v: %q, want %q", tc.opts, got, tc.want)
				}
			}
		}},
		{name: "maxCharsPerColumn counts characters, not bytes", options: []string{"maxCharsPerColumn"}, run: func(t *testing.T) {
			p := newPipe(t)
			p.write("a.csv", "v\néé\néééé\n")
			if _, err := p.run(withCSV(map[string]string{"header": "true", "maxCharsPerColumn": "3"})); err == nil || !strings.Contains(err.Error(), "maxCharsPerColumn") {
				t.Errorf("four characters, maxCharsPerColumn=3: %v, want a limit error", err)
			}
			q := csvPipe(t, "v\néé\nééé\n", map[string]string{"header": "true", "maxCharsPerColumn": "3"})
			if got := q.column("v"); !slices.Equal(got, []string{"éé", "ééé"}) {
				t.Errorf("three characters (six bytes), maxCharsPerColumn=3: %q", got)
			}
		}},
		{name: "timestampFormat and timeZone apply to CSV timestamps in the ISO form too", options: []string{"timestampFormat", "timeZone"}, run: func(t *testing.T) {
			const data = "ts\n2021-03-04T05:06:07\n"
			opts := map[string]string{"header": "true", "cloudFiles.schemaHints": "ts TIMESTAMP"}
			if got := csvPipe(t, data, opts).column("ts"); !slices.Equal(got, []string{`"2021-03-04T05:06:07Z"`}) {
				t.Errorf("default: ts %v", got)
			}
			zoned := maps.Clone(opts)
			zoned["timeZone"] = "America/New_York"
			if got := csvPipe(t, data, zoned).column("ts"); !slices.Equal(got, []string{`"2021-03-04T10:06:07Z"`}) {
				t.Errorf("timeZone New York: ts %v, want 10:06:07Z", got)
			}
			// A pattern the value does not match, even in the common UTC
			// form: no fallback to the default parsing
			// (enableDateTimeParsingFallback is false with a pattern).
			patterned := maps.Clone(opts)
			patterned["timestampFormat"] = "yyyy.MM.dd HH.mm"
			if got := csvPipe(t, "ts\n2021-03-04T05:06:07Z\n", patterned).column("ts"); !slices.Equal(got, []string{"null"}) {
				t.Errorf("timestampFormat yyyy.MM.dd HH.mm: ts %v, want null (rescued)", got)
			}
		}},
		{name: "CSV options apply to a file inferred and read in parallel chunks", options: []string{"sep", "prefersDecimal"}, run: func(t *testing.T) {
			// Over 256 KiB with a header: inference and the read cut the
			// lines into chunks that worker goroutines tokenize.
			var b strings.Builder
			b.WriteString("id;x\n")
			for i := range 30000 {
				fmt.Fprintf(&b, "%d;1.5\n", i)
			}
			p := csvPipe(t, b.String(), map[string]string{"header": "true", "sep": ";", "prefersDecimal": "true", "cloudFiles.inferColumnTypes": "true"})
			p.wantDecimalRows([]string{"id INT", "x DECIMAL(2,1)", "_rescued_data STRING"}, 30000)
		}},
		{name: "mode, columnNameOfCorruptRecord and badRecordsPath apply to CSV records on the row, columnar and parallel reads", options: []string{"mode", "columnNameOfCorruptRecord", "badRecordsPath"}, run: func(t *testing.T) {
			// A user schema (no inference, no rescued data column): a short
			// record is malformed, a value that does not fit INT is bad too.
			// partitionBy makes the read go in rows; without it a file
			// without a header is read in column batches, one with a header
			// in chunks (here several, decoded by workers, the bad records
			// in the last one).
			const malformed, unfit = "7", "x,y"
			for _, tc := range []struct {
				name   string
				header bool
				good   int
				part   string
			}{{"rows", true, 2, "name"}, {"columnar", false, 2, ""}, {"parallel", true, 20000, ""}} {
				var b strings.Builder
				if tc.header {
					b.WriteString("id,name\n")
				}
				for i := range tc.good {
					if i == tc.good-1 {
						b.WriteString(malformed + "\n" + unfit + "\n")
					}
					fmt.Fprintf(&b, "%d,n\n", i)
				}
				line := fmt.Sprintf("a.csv line %d", tc.good) // the malformed record's
				if tc.header {
					line = fmt.Sprintf("a.csv line %d", tc.good+1)
				}
				var rows int64 // the last run's
				run := func(opts map[string]string, extra string) (*pipe, error) {
					p := newPipe(t)
					p.userSchema = "id INT, name STRING" + extra
					p.write("a.csv", b.String())
					o := map[string]string{"header": fmt.Sprint(tc.header)}
					if tc.part != "" {
						o["partitionBy"] = tc.part
					}
					maps.Copy(o, opts)
					sum, err := p.run(withCSV(o))
					rows = sum.Rows()
					return p, err
				}
				p, err := run(map[string]string{"columnNameOfCorruptRecord": "_bad"}, ", _bad STRING")
				if err != nil {
					t.Fatalf("%s PERMISSIVE: %v", tc.name, err)
				}
				if got := slices.DeleteFunc(p.column("_bad"), func(s string) bool { return s == "null" }); !slices.Equal(got, []string{malformed, unfit}) {
					t.Errorf("%s PERMISSIVE: _bad %q, want the malformed and the unfit records' text", tc.name, got)
				}
				_, err = run(map[string]string{"mode": "DROPMALFORMED"}, "")
				if n := rows; err != nil || n != int64(tc.good) {
					t.Errorf("%s DROPMALFORMED: %v, %d rows, want %d", tc.name, err, n, tc.good)
				}
				p, err = run(map[string]string{"mode": "FAILFAST"}, "")
				if !errors.Is(err, formats.ErrMalformedRecord) || !strings.Contains(err.Error(), line) || p.snapshot() != nil {
					t.Errorf("%s FAILFAST: %v, want a failure naming %s and no table", tc.name, err, line)
				}
				bad := filepath.Join(t.TempDir(), "bad")
				_, err = run(map[string]string{"badRecordsPath": bad}, "")
				if n := rows; err != nil || n != int64(tc.good) {
					t.Errorf("%s badRecordsPath: %v, %d rows, want %d", tc.name, err, n, tc.good)
				}
				var recs []string
				for _, f := range listFiles(t, bad) {
					for _, r := range jsonLines(t, filepath.Join(bad, f)) {
						recs = append(recs, r["record"])
					}
				}
				if slices.Sort(recs); !slices.Equal(recs, []string{malformed, unfit}) {
					t.Errorf("%s badRecordsPath: records %q, want the malformed and the unfit one", tc.name, recs)
				}
			}
		}},
		{name: "nanValue, positiveInf and negativeInf infer as DOUBLE and read into FLOAT columns", options: []string{"nanValue", "positiveInf", "negativeInf"}, run: func(t *testing.T) {
			// One column of each special value, inferred; one of each,
			// typed FLOAT by a hint.
			const data = "a,b,c,d,e,f\nnan,+inf,-inf,nan,+inf,-inf\n"
			opts := map[string]string{"header": "true", "cloudFiles.inferColumnTypes": "true", "cloudFiles.schemaHints": "d FLOAT, e FLOAT, f FLOAT"}
			off := csvPipe(t, data, opts)
			if got := off.schema(); !slices.Equal(got[:3], []string{"a STRING", "b STRING", "c STRING"}) {
				t.Errorf("defaults: schema %v, want a, b, c STRING", got)
			}
			on := maps.Clone(opts)
			maps.Copy(on, map[string]string{"nanValue": "nan", "positiveInf": "+inf", "negativeInf": "-inf"})
			p := csvPipe(t, data, on)
			if got := p.schema(); !slices.Equal(got[:6], []string{"a DOUBLE", "b DOUBLE", "c DOUBLE", "d FLOAT", "e FLOAT", "f FLOAT"}) {
				t.Errorf("custom: schema %v, want a, b, c DOUBLE", got)
			}
			rows := p.rows()
			if len(rows) != 1 {
				t.Fatalf("custom: %d rows", len(rows))
			}
			r := rows[0]
			for _, k := range []string{"a", "d"} {
				if f := fmt.Sprint(r[k]); f != "NaN" {
					t.Errorf("custom: %s %v, want NaN", k, r[k])
				}
			}
			for k, want := range map[string]string{"b": "+Inf", "c": "-Inf", "e": "+Inf", "f": "-Inf"} {
				if f := fmt.Sprint(r[k]); f != want {
					t.Errorf("custom: %s %v, want %s", k, r[k], want)
				}
			}
			if r["_rescued_data"] != nil {
				t.Errorf("custom: rescued %v", r["_rescued_data"])
			}
		}},
		{name: "nullValue names a header value equal to it _c<i>, in inference and in the read", options: []string{"nullValue"}, run: func(t *testing.T) {
			p := newPipe(t)
			p.write("a.csv", "id,NA\n1,x\n")
			p.mustRun(withCSV(map[string]string{"header": "true", "nullValue": "NA"}))
			if got := p.schema(); !slices.Equal(got, []string{"id STRING", "_c1 STRING", "_rescued_data STRING"}) {
				t.Errorf("schema %v, want id, _c1 (Spark's makeSafeHeader)", got)
			}
			// A second file read with the schema: its NA column is _c1 too.
			p.write("b.csv", "id,NA\n2,y\n")
			p.mustRun(withCSV(map[string]string{"header": "true", "nullValue": "NA"}))
			if got := p.column("_c1"); !slices.Equal(got, []string{"x", "y"}) {
				t.Errorf("_c1 %v, want x and y", got)
			}
			if got := p.column("_rescued_data"); !slices.Equal(got, []string{"null", "null"}) {
				t.Errorf("rescued %v, want none", got)
			}
		}},
		{name: "quote and sep apply on every tokenizer path", options: []string{"quote", "sep"}, run: func(t *testing.T) {
			// A short line (split with bitmaps), a line over 4 KiB (split
			// byte by byte) and a line with a quote in an unquoted value
			// (read rune by rune); a double quote, which is no quote here.
			long := strings.Repeat("z", 5000)
			data := "v,w\n'x,y',z\n'x2,y'," + long + "\n'x3,y',a'b\n\"a',b\n\"c'," + long + "\n"
			p := csvPipe(t, data, map[string]string{"header": "true", "quote": "'"})
			if got := p.column("v"); !slices.Equal(got, []string{`"a'`, `"c'`, "x,y", "x2,y", "x3,y"}) {
				t.Errorf("quote=': v %q", got)
			}
			data = "a;b\n1;2\n3;" + long + "\n5;x\"y\n"
			p = csvPipe(t, data, map[string]string{"header": "true", "sep": ";"})
			if got := p.column("a"); !slices.Equal(got, []string{"1", "3", "5"}) {
				t.Errorf("sep=;: a %q", got)
			}
		}},
		{name: "escape and charToEscapeQuoteEscaping apply on every tokenizer path", options: []string{"escape", "charToEscapeQuoteEscaping"}, run: func(t *testing.T) {
			// With charToEscapeQuoteEscaping other than the escape, a
			// quoted value holding the escape is still read rune by rune:
			// '" is a quote that does not close the value.
			opts := map[string]string{"header": "true", "escape": "'", "charToEscapeQuoteEscaping": "#"}
			p := csvPipe(t, "v,w\n\"a'\",b\n\"c'\"d\",e\n", opts)
			if got := p.column("v"); !slices.Equal(got, []string{`a",b`, `c"d`}) {
				t.Errorf("escape=', charToEscapeQuoteEscaping=#: v %q", got)
			}
			// An escape that is also charToEscapeQuoteEscaping (its default):
			// ## before a quote is one #, and the quote closes the value.
			p = csvPipe(t, "v,w\n\"a##\",b\n", map[string]string{"header": "true", "escape": "#"})
			if got := p.column("v"); !slices.Equal(got, []string{"a#"}) {
				t.Errorf("escape=#: v %q, want a#", got)
			}
		}},
	}
}

// withCSV adds cloudFiles.format=csv to opts.
func withCSV(opts map[string]string) map[string]string {
	out := map[string]string{"cloudFiles.format": "csv"}
	maps.Copy(out, opts)
	return out
}

// csvPipe ingests one CSV file a.csv with opts (cloudFiles.format=csv) in a
// new pipe.
func csvPipe(t *testing.T, content string, opts map[string]string) *pipe {
	t.Helper()
	p := newPipe(t)
	p.write("a.csv", content)
	p.mustRun(withCSV(opts))
	return p
}
