package options_test

import (
	"slices"
	"testing"
)

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
		syntaxCase("allowComments", "true", "{\"a\":\"x\" /* c */}\n// a comment line\n", "x"),
		syntaxCase("allowUnquotedFieldNames", "true", `{a:"x"}`+"\n", "x"),
		syntaxCase("allowSingleQuotes", "false", `{'a':'x'}`+"\n", "x"),
		syntaxCase("allowNumericLeadingZeros", "true", `{"a":007}`+"\n", "7"),
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
	}
}
