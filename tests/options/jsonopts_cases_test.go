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
)

// jsonValue ingests one JSON record with opts and returns column col of
// its row as fmtValue prints it.
func jsonValue(t *testing.T, record string, opts map[string]string, col string) string {
	t.Helper()
	p := newPipe(t)
	p.write("a.json", record+"\n")
	p.mustRun(opts)
	got := p.column(col)
	if len(got) != 1 {
		t.Fatalf("%d rows", len(got))
	}
	return got[0]
}

// syntaxCase proves a JSON allow* option: the record is read with the
// option's lenient setting (its value for the options that are off by
// default, Spark's default otherwise) into column a as want, and with the
// strict setting it is malformed (one row, a null, the text in
// _corrupt_record or rescued).
func syntaxCase(option, value, record, want string) optionCase {
	return optionCase{name: option + " widens the JSON syntax", options: []string{option}, run: func(t *testing.T) {
		lenient, strict := map[string]string{option: value}, map[string]string{}
		if value == "false" { // on by default: setting it is the strict run
			lenient, strict = strict, lenient
		}
		on := newPipe(t)
		on.write("a.json", record)
		on.mustRun(lenient)
		if got := on.column("a"); !slices.Equal(got, []string{want}) {
			t.Errorf("%s lenient (%v): a %q, want [%q]", option, lenient, got, want)
		}
		off := newPipe(t)
		off.write("a.json", record)
		off.mustRun(strict)
		if got := off.column("a"); slices.Contains(got, want) {
			t.Errorf("%s strict (%v): a %q: the record was read", option, strict, got)
		}
		if n := len(off.rows()); n == 0 {
			t.Errorf("%s strict: no rows, want the malformed record kept", option)
		}
	}}
}

// jsonoptsCases are the behavioural cases of the jsonopts area's options:
// the JSON parser and datetime options, and typed, null and escaped
// partition values.
func jsonoptsCases() []optionCase {
	return []optionCase{
		{name: "dateFormat parses DATE values with a Spark pattern (JSON and CSV)", options: []string{"dateFormat"}, run: func(t *testing.T) {
			opts := map[string]string{"cloudFiles.schemaHints": "d DATE", "dateFormat": "dd/MM/yyyy"}
			if got := jsonValue(t, `{"d":"04/03/2021"}`, opts, "d"); got != "18690" {
				t.Errorf("dateFormat dd/MM/yyyy: d %s, want 18690 (2021-03-04)", got)
			}
			delete(opts, "dateFormat")
			if got := jsonValue(t, `{"d":"04/03/2021"}`, opts, "d"); got != "null" {
				t.Errorf("default: d %s, want null (rescued)", got)
			}
			csv := csvPipe(t, "d\n04/03/2021\n", map[string]string{"header": "true", "cloudFiles.schemaHints": "d DATE", "dateFormat": "dd/MM/yyyy"})
			if got := csv.column("d"); !slices.Equal(got, []string{"18690"}) {
				t.Errorf("csv dateFormat: d %v", got)
			}
			inf := csvPipe(t, "d\n04/03/2021\n", map[string]string{"header": "true", "cloudFiles.inferColumnTypes": "true", "dateFormat": "dd/MM/yyyy"})
			if got := inf.schema(); !slices.Contains(got, "d DATE") {
				t.Errorf("csv inference with dateFormat: schema %v, want d DATE", got)
			}
			if _, err := newPipe(t).load(map[string]string{"dateFormat": "EEE dd/MM/yyyy"}); err == nil || !strings.Contains(err.Error(), "dateFormat") {
				t.Errorf("a pattern letter Spark does not parse with: %v, want a load error naming dateFormat", err)
			}
		}},
		{name: "timestampFormat parses TIMESTAMP values with a Spark pattern", options: []string{"timestampFormat"}, run: func(t *testing.T) {
			opts := map[string]string{"cloudFiles.schemaHints": "ts TIMESTAMP", "timestampFormat": "dd/MM/yyyy h:mm a"}
			if got := jsonValue(t, `{"ts":"04/03/2021 5:06 PM"}`, opts, "ts"); got != `"2021-03-04T17:06:00Z"` {
				t.Errorf("timestampFormat: ts %s", got)
			}
			delete(opts, "timestampFormat")
			if got := jsonValue(t, `{"ts":"04/03/2021 5:06 PM"}`, opts, "ts"); got != "null" {
				t.Errorf("default: ts %s, want null", got)
			}
			csv := csvPipe(t, "ts\n2021.03.04 05.06\n", map[string]string{"header": "true", "cloudFiles.schemaHints": "ts TIMESTAMP", "timestampFormat": "yyyy.MM.dd HH.mm"})
			if got := csv.column("ts"); !slices.Equal(got, []string{`"2021-03-04T05:06:00Z"`}) {
				t.Errorf("csv timestampFormat: ts %v", got)
			}
		}},
		{name: "timestampNTZFormat parses TIMESTAMP_NTZ values with a Spark pattern", options: []string{"timestampNTZFormat"}, run: func(t *testing.T) {
			opts := map[string]string{"cloudFiles.schemaHints": "n TIMESTAMP_NTZ", "timestampNTZFormat": "yyyyMMddHHmmss"}
			if got := jsonValue(t, `{"n":"20210304050607"}`, opts, "n"); got != `"2021-03-04T05:06:07Z"` {
				t.Errorf("timestampNTZFormat: n %s", got)
			}
			delete(opts, "timestampNTZFormat")
			if got := jsonValue(t, `{"n":"20210304050607"}`, opts, "n"); got != "null" {
				t.Errorf("default: n %s, want null", got)
			}
		}},
		{name: "timeZone is the zone of timestamps written without one", options: []string{"timeZone"}, run: func(t *testing.T) {
			opts := map[string]string{"cloudFiles.schemaHints": "ts TIMESTAMP", "timeZone": "America/New_York"}
			if got := jsonValue(t, `{"ts":"2021-03-04T05:06:07"}`, opts, "ts"); got != `"2021-03-04T10:06:07Z"` {
				t.Errorf("timeZone New York: ts %s", got)
			}
			if got := jsonValue(t, `{"ts":"2021-03-04T05:06:07+01:00"}`, opts, "ts"); got != `"2021-03-04T04:06:07Z"` {
				t.Errorf("timeZone New York, a value with an offset: ts %s", got)
			}
			delete(opts, "timeZone")
			if got := jsonValue(t, `{"ts":"2021-03-04T05:06:07"}`, opts, "ts"); got != `"2021-03-04T05:06:07Z"` {
				t.Errorf("default (UTC): ts %s", got)
			}
			if _, err := newPipe(t).load(map[string]string{"timeZone": "Mars/Olympus"}); err == nil || !strings.Contains(err.Error(), "timeZone") {
				t.Errorf("unknown zone: %v", err)
			}
		}},
		{name: "locale names months in the datetime patterns", options: []string{"locale"}, run: func(t *testing.T) {
			opts := map[string]string{"cloudFiles.schemaHints": "d DATE", "dateFormat": "d MMMM yyyy", "locale": "fr-FR"}
			if got := jsonValue(t, `{"d":"4 mars 2021"}`, opts, "d"); got != "18690" {
				t.Errorf("locale fr-FR: d %s, want 18690", got)
			}
			delete(opts, "locale")
			if got := jsonValue(t, `{"d":"4 mars 2021"}`, opts, "d"); got != "null" {
				t.Errorf("default en-US: d %s, want null", got)
			}
			if _, err := newPipe(t).load(map[string]string{"locale": "ja-JP"}); err == nil || !strings.Contains(err.Error(), "locale") {
				t.Errorf("a locale without names: %v", err)
			}
		}},
		{name: "inferTimestamp infers timestamp strings as TIMESTAMP", options: []string{"inferTimestamp"}, run: func(t *testing.T) {
			for _, on := range []bool{true, false} {
				p := newPipe(t)
				p.write("a.json", `{"ts":"2021-03-04T05:06:07Z","s":"x"}`+"\n")
				opts := map[string]string{"cloudFiles.inferColumnTypes": "true"}
				if on {
					opts["inferTimestamp"] = "true"
				}
				p.mustRun(opts)
				want := map[bool]string{true: "ts TIMESTAMP", false: "ts STRING"}[on]
				if got := p.schema(); !slices.Contains(got, want) || !slices.Contains(got, "s STRING") {
					t.Errorf("inferTimestamp=%v: schema %v, want %s", on, got, want)
				}
			}
		}},
		{name: "multiLine reads a JSON file as one value (an object, or an array of records)", options: []string{"multiLine"}, run: func(t *testing.T) {
			const doc = "[\n  {\"id\": 1,\n   \"name\": \"a\"},\n  {\"id\": 2, \"name\": \"b\"}\n]\n"
			on := newPipe(t)
			on.write("a.json", doc)
			on.write("b.json", "{\n  \"id\": 3,\n  \"name\": \"c\"\n}\n")
			on.mustRun(map[string]string{"multiLine": "true"})
			if got := on.column("name"); !slices.Equal(got, []string{"a", "b", "c"}) {
				t.Errorf("multiLine: names %v, want a b c", got)
			}
			off := newPipe(t)
			off.write("a.json", doc)
			off.mustRun(nil)
			if got := off.column("name"); slices.Contains(got, "a") {
				t.Errorf("line by line: names %v: the records spanning lines were read", got)
			}
			// UTF-16 with a byte order mark needs multiLine (Spark).
			utf16 := newPipe(t)
			utf16.writeBytes("a.json", append([]byte{0xFF, 0xFE}, utf16le("{\n \"name\": \"é\"\n}")...))
			utf16.mustRun(map[string]string{"multiLine": "true", "encoding": "UTF-16"})
			if got := utf16.column("name"); !slices.Equal(got, []string{"é"}) {
				t.Errorf("multiLine UTF-16: names %v", got)
			}
			if _, err := newPipe(t).load(map[string]string{"encoding": "UTF-16"}); err == nil {
				t.Errorf("UTF-16 without multiLine loaded")
			}
		}},
		{name: "samplingRatio infers the schema from a fraction of the records", options: []string{"samplingRatio"}, run: func(t *testing.T) {
			var b strings.Builder
			for i := range 400 {
				fmt.Fprintf(&b, "{\"f%03d\": 1}\n", i)
			}
			columns := func(opts map[string]string) int {
				p := newPipe(t)
				p.write("a.json", b.String())
				p.mustRun(opts)
				if n := len(p.rows()); n != 400 {
					t.Fatalf("%v: %d rows, want 400 (every record is read)", opts, n)
				}
				return len(p.schema())
			}
			if n := columns(nil); n != 401 {
				t.Errorf("default: %d columns, want 400 and _rescued_data", n)
			}
			if n := columns(map[string]string{"samplingRatio": "0.1"}); n < 10 || n > 100 {
				t.Errorf("samplingRatio=0.1: %d columns, want about 40 (and _rescued_data)", n)
			}
			// CSV: 50 columns, each "x" in 4 of 200 records and "1" in the
			// others. Every record inferred: all STRING; a 10% sample misses
			// the "x" of some columns, which infer as INT.
			var c strings.Builder
			for j := range 50 {
				if j > 0 {
					c.WriteByte(',')
				}
				fmt.Fprintf(&c, "c%02d", j)
			}
			c.WriteByte('\n')
			for i := range 200 {
				for j := range 50 {
					if j > 0 {
						c.WriteByte(',')
					}
					c.WriteString(map[bool]string{true: "x", false: "1"}[i%50 == j])
				}
				c.WriteByte('\n')
			}
			ints := func(opts map[string]string) int {
				opts["header"], opts["cloudFiles.inferColumnTypes"] = "true", "true"
				p := csvPipe(t, c.String(), opts)
				if n := len(p.rows()); n != 200 {
					t.Fatalf("csv %v: %d rows, want 200 (every record is read)", opts, n)
				}
				n := 0
				for _, col := range p.schema() {
					if strings.HasSuffix(col, " INT") {
						n++
					}
				}
				return n
			}
			if n := ints(map[string]string{}); n != 0 {
				t.Errorf("csv default: %d INT columns, want none (every column has an x)", n)
			}
			if n := ints(map[string]string{"samplingRatio": "0.1"}); n == 0 || n == 50 {
				t.Errorf("csv samplingRatio=0.1: %d INT columns, want some (the sample misses their x), not all", n)
			}
			for _, bad := range []string{"0", "1.5", "x"} {
				if _, err := newPipe(t).load(map[string]string{"cloudFiles.format": "csv", "samplingRatio": bad}); err == nil || !strings.Contains(err.Error(), "samplingRatio") {
					t.Errorf("samplingRatio=%s: %v", bad, err)
				}
			}
		}},
		{name: "enableDateTimeParsingFallback parses what the pattern does not match as by default", options: []string{"enableDateTimeParsingFallback"}, run: func(t *testing.T) {
			opts := map[string]string{"cloudFiles.schemaHints": "d DATE", "dateFormat": "dd/MM/yyyy", "enableDateTimeParsingFallback": "true"}
			if got := jsonValue(t, `{"d":"2021-03-04"}`, opts, "d"); got != "18690" {
				t.Errorf("fallback: d %s, want 18690", got)
			}
			delete(opts, "enableDateTimeParsingFallback")
			if got := jsonValue(t, `{"d":"2021-03-04"}`, opts, "d"); got != "null" {
				t.Errorf("no fallback: d %s, want null", got)
			}
		}},
		syntaxCase("allowComments", "true", "{\"a\":\"x\" /* c */}\n// a comment line\n", "x"),
		syntaxCase("allowUnquotedFieldNames", "true", `{a:"x"}`+"\n", "x"),
		syntaxCase("allowSingleQuotes", "false", `{'a':'x'}`+"\n", "x"),
		syntaxCase("allowNumericLeadingZeros", "true", `{"a":007}`+"\n", "007"), // the record's own text, as Spark 4 keeps it
		syntaxCase("allowBackslashEscapingAnyCharacter", "true", `{"a":"\q"}`+"\n", "q"),
		syntaxCase("allowUnquotedControlChars", "true", "{\"a\":\"x\ty\"}\n", "x\ty"),
		syntaxCase("allowNonNumericNumbers", "false", `{"a":NaN}`+"\n", "NaN"),
		{name: "schemaHints types a partition column; empty and __HIVE_DEFAULT_PARTITION__ values are null", options: []string{"cloudFiles.schemaHints", "cloudFiles.partitionColumns"}, run: func(t *testing.T) {
			write := func(p *pipe) {
				p.write("day=2026-01-02/city=New York/a.json", `{"id":1}`+"\n")
				p.write("day=__HIVE_DEFAULT_PARTITION__/city=S%C3%A3o Paulo/b.json", `{"id":2}`+"\n")
				p.write("day=2026-1-3/city=/c.json", `{"id":3}`+"\n")
			}
			typed := newPipe(t)
			write(typed)
			typed.mustRun(map[string]string{"cloudFiles.partitionColumns": "day,city", "cloudFiles.schemaHints": "day DATE"})
			if got := typed.schema(); !slices.Equal(got, []string{"id STRING", "_rescued_data STRING", "day DATE", "city STRING"}) {
				t.Errorf("typed: schema %v", got)
			}
			if got := typed.column("day"); !slices.Equal(got, []string{"2026-01-02", "2026-01-03", "null"}) {
				t.Errorf("typed: day %v", got)
			}
			if got := typed.column("city"); !slices.Equal(got, []string{"New York", "São Paulo", "null"}) {
				t.Errorf("typed: city %v", got)
			}
			plain := newPipe(t)
			write(plain)
			plain.mustRun(map[string]string{"cloudFiles.partitionColumns": "day,city"})
			if got := plain.schema(); !slices.Equal(got, []string{"id STRING", "_rescued_data STRING", "day STRING", "city STRING"}) {
				t.Errorf("untyped: schema %v", got)
			}
			if got := plain.column("day"); !slices.Equal(got, []string{"2026-01-02", "2026-1-3", "null"}) {
				t.Errorf("untyped: day %v (the directory text, nulls kept)", got)
			}
		}},
		{name: "allowSingleQuotes covers single-quoted values, names and escaped single quotes alone", options: []string{"allowSingleQuotes"}, run: func(t *testing.T) {
			for _, tc := range []struct{ record, want string }{
				{`{"a":'x'}`, "x"},
				{`{'a':"x"}`, "x"},
				{`{"a":"it\'s"}`, "it's"}, // Jackson: \' is an escape when single quotes are allowed
			} {
				on := newPipe(t)
				on.write("a.json", tc.record+"\n")
				on.mustRun(nil)
				if got := on.column("a"); !slices.Equal(got, []string{tc.want}) {
					t.Errorf("%s by default: a %q, want [%q]", tc.record, got, tc.want)
				}
				off := newPipe(t)
				off.write("a.json", tc.record+"\n")
				off.mustRun(map[string]string{"allowSingleQuotes": "false"})
				if got := off.column("a"); slices.Contains(got, tc.want) || len(got) != 1 {
					t.Errorf("%s with allowSingleQuotes=false: a %q, want the record kept as malformed", tc.record, got)
				}
			}
		}},
		{name: "mode and badRecordsPath apply to JSON records on the row and columnar reads, malformed or not fitting without rescue", options: []string{"mode", "badRecordsPath", "columnNameOfCorruptRecord"}, run: func(t *testing.T) {
			// A user schema has no rescued data column: a value that does
			// not fit its column makes a bad record, as a malformed one.
			// A MAP column makes the read go row by row (no column batch).
			const malformed, unfit = `{"a":`, `{"a":"3","n":"x"}`
			data := `{"a":"1","n":1}` + "\n" + malformed + "\n" + unfit + "\n" + `{"a":"4","n":4}` + "\n"
			for _, sch := range []string{"a STRING, n INT", "a STRING, n INT, m MAP<STRING,STRING>"} {
				run := func(data string, opts map[string]string, extra string) (*pipe, error) {
					p := newPipe(t)
					p.userSchema = sch + extra
					p.write("a.json", data)
					_, err := p.run(opts)
					return p, err
				}
				p, err := run(data, map[string]string{"columnNameOfCorruptRecord": "_bad"}, ", _bad STRING")
				if err != nil {
					t.Fatalf("%s PERMISSIVE: %v", sch, err)
				}
				if got := p.column("_bad"); !slices.Equal(got, []string{"null", "null", malformed, unfit}) {
					t.Errorf("%s PERMISSIVE: _bad %q, want the malformed and the unfit records' text", sch, got)
				}
				p, err = run(data, map[string]string{"mode": "DROPMALFORMED"}, "")
				if err != nil {
					t.Fatalf("%s DROPMALFORMED: %v", sch, err)
				}
				if got := p.column("a"); !slices.Equal(got, []string{"1", "4"}) {
					t.Errorf("%s DROPMALFORMED: a %v, want 1 and 4", sch, got)
				}
				for _, tc := range []struct{ data, line string }{{data, "a.json line 2"}, {`{"a":"1","n":1}` + "\n" + unfit + "\n", "a.json line 2"}} {
					p, err = run(tc.data, map[string]string{"mode": "FAILFAST"}, "")
					if !errors.Is(err, formats.ErrMalformedRecord) || !strings.Contains(err.Error(), tc.line) || p.snapshot() != nil {
						t.Errorf("%s FAILFAST on %q: %v, want a failure naming %s and no table", sch, tc.data, err, tc.line)
					}
				}
				bad := filepath.Join(t.TempDir(), "bad")
				p, err = run(data, map[string]string{"badRecordsPath": bad}, "")
				if err != nil {
					t.Fatalf("%s badRecordsPath: %v", sch, err)
				}
				if got := p.column("a"); !slices.Equal(got, []string{"1", "4"}) {
					t.Errorf("%s badRecordsPath: a %v, want 1 and 4", sch, got)
				}
				var recs []string
				for _, f := range listFiles(t, bad) {
					for _, r := range jsonLines(t, filepath.Join(bad, f)) {
						recs = append(recs, r["record"])
					}
				}
				if slices.Sort(recs); !slices.Equal(recs, []string{malformed, unfit}) {
					t.Errorf("%s badRecordsPath: records %q, want the malformed and the unfit one", sch, recs)
				}
			}
		}},
		{name: "JSON options apply to a file inferred and read in parallel chunks", options: []string{"allowComments", "prefersDecimal"}, run: func(t *testing.T) {
			// Over 128 KiB: inference and the read cut the file into chunks
			// that worker goroutines decode, each with a reader of its own.
			var b strings.Builder
			for i := range 8000 {
				fmt.Fprintf(&b, "{\"id\":%d, /* c */ \"x\":1.5}\n", i)
			}
			p := newPipe(t)
			p.write("a.json", b.String())
			p.mustRun(map[string]string{"allowComments": "true", "prefersDecimal": "true", "cloudFiles.inferColumnTypes": "true"})
			p.wantDecimalRows([]string{"id BIGINT", "x DECIMAL(2,1)", "_rescued_data STRING"}, 8000)
		}},
		{name: "primitivesAsString and inferTimestamp on records only the tape path infers (single quotes)", options: []string{"primitivesAsString", "inferTimestamp"}, run: func(t *testing.T) {
			// Single quotes (allowSingleQuotes, true by default) are not
			// standard JSON: the type scanner leaves these records to the
			// tape path.
			const data = `{'n':1,'b':true,'ts':'2021-03-04T05:06:07Z'}` + "\n"
			for _, tc := range []struct {
				opts map[string]string
				want []string
			}{
				{nil, []string{"b BOOLEAN", "n BIGINT", "ts STRING"}},
				{map[string]string{"primitivesAsString": "true"}, []string{"b STRING", "n STRING", "ts STRING"}},
				{map[string]string{"inferTimestamp": "true"}, []string{"b BOOLEAN", "n BIGINT", "ts TIMESTAMP"}},
			} {
				p := newPipe(t)
				p.write("a.json", data)
				opts := map[string]string{"cloudFiles.inferColumnTypes": "true"}
				maps.Copy(opts, tc.opts)
				p.mustRun(opts)
				if got := p.schema(); !slices.Equal(got, append(tc.want, "_rescued_data STRING")) {
					t.Errorf("%v: schema %v, want %v", tc.opts, got, tc.want)
				}
			}
		}},
		{name: "timestampFormat types CSV inference; dateFormat reads JSON MAP keys", options: []string{"timestampFormat", "dateFormat"}, run: func(t *testing.T) {
			const data = "ts\n04/03/2021 10:20\n"
			opts := map[string]string{"header": "true", "cloudFiles.inferColumnTypes": "true"}
			if got := csvPipe(t, data, opts).schema(); !slices.Contains(got, "ts STRING") {
				t.Errorf("csv inference without timestampFormat: schema %v, want ts STRING", got)
			}
			with := maps.Clone(opts)
			with["timestampFormat"] = "dd/MM/yyyy HH:mm"
			if got := csvPipe(t, data, with).schema(); !slices.Contains(got, "ts TIMESTAMP") {
				t.Errorf("csv inference with timestampFormat: schema %v, want ts TIMESTAMP", got)
			}
			p := newPipe(t)
			p.userSchema = "m MAP<DATE, STRING>"
			p.write("a.json", `{"m":{"04/03/2021":"x"}}`+"\n")
			p.mustRun(map[string]string{"dateFormat": "dd/MM/yyyy"})
			if got := p.column("m"); len(got) != 1 || !strings.Contains(got[0], "18690") {
				t.Errorf("MAP<DATE, STRING> with dateFormat: m %v, want the key 2021-03-04 (day 18690)", got)
			}
		}},
	}
}
