package jsonfmt

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"strings"
	"testing"

	"github.com/tributary-io/tributary/core/formats/fileformat"
	"github.com/tributary-io/tributary/core/schema"
)

func TestSyntaxOptions(t *testing.T) {
	tests := []struct {
		option string // the option turned on ("" = defaults); "-name" turns a default off
		record string
		// want is the record as standard JSON, or "" when it is malformed.
		wantOff, wantOn string
	}{
		{"allowComments", `{"a": 1 /* c */, // x` + "\n\"b\": 2}", "", `{"a":1,"b":2}`},
		{"allowComments", `/* only */`, "", "(no value)"},
		{"allowUnquotedFieldNames", `{a_1$: 1, "b": 2}`, "", `{"a_1$":1,"b":2}`},
		{"allowNumericLeadingZeros", `{"a": 007, "b": -00.5}`, "", `{"a":7,"b":-0.5}`},
		{"allowBackslashEscapingAnyCharacter", `{"a": "\q\é"}`, "", `{"a":"qé"}`},
		{"allowUnquotedControlChars", "{\"a\": \"x\ty\"}", "", `{"a":"x\ty"}`},
		{"-allowSingleQuotes", `{'a': 'it\'s', "b": 'say "hi"'}`, `{"a":"it's","b":"say \"hi\""}`, ""},
		{"-allowSingleQuotes", `{'a': 'x'}`, `{"a":"x"}`, ""},
		{"-allowNonNumericNumbers", `{"a": NaN, "b": -Infinity}`, `{"a":"NaN","b":"-Infinity"}`, ""},
	}
	for _, tc := range tests {
		name, val := strings.TrimPrefix(tc.option, "-"), "true"
		if strings.HasPrefix(tc.option, "-") {
			val = "false"
		}
		for _, on := range []bool{false, true} {
			opts := map[string]string{}
			if on {
				opts[strings.ToLower(name)] = val // names are case-insensitive
			}
			syn, err := parseSyntax(opts)
			if err != nil {
				t.Fatal(err)
			}
			tp := tape{syn: syn}
			want := tc.wantOff
			if on {
				want = tc.wantOn
			}
			err = tp.parse([]byte(tc.record))
			switch {
			case want == "(no value)":
				if !errors.Is(err, errNoValue) {
					t.Errorf("%s=%v %q: %v, want no value", name, on, tc.record, err)
				}
			case want == "":
				if err == nil {
					t.Errorf("%s set=%v %q: parsed, want malformed", name, on, tc.record)
				}
			case err != nil:
				t.Errorf("%s set=%v %q: %v", name, on, tc.record, err)
			default:
				if got := string(tp.jsonText(nil, 0)); got != want {
					t.Errorf("%s set=%v %q: %s, want %s", name, on, tc.record, got, want)
				}
			}
		}
	}
	if _, err := parseSyntax(map[string]string{"allowComments": "maybe"}); !errors.Is(err, fileformat.ErrBadOption) {
		t.Errorf("bad value: %v", err)
	}
}

// TestLenientRecordRead: a record using lenient syntax reads into typed
// columns, and its nested values and rescued fields are standard JSON.
func TestLenientRecordRead(t *testing.T) {
	ctx := context.Background()
	data := "{id: 007, 'o': {x: 'a'} /* c */, extra: [01]}\n// a comment line\n{\"id\": 2}\n"
	opts := map[string]string{"allowUnquotedFieldNames": "true", "allowNumericLeadingZeros": "true", "allowComments": "true"}
	inf := Format{}.NewInferrer(fileformat.InferOptions{RescuedDataColumn: "_rescued_data", Options: opts, Hints: nil})
	if err := inf.Add(ctx, "a.json", strings.NewReader(data)); err != nil {
		t.Fatal(err)
	}
	s := inf.Schema()
	if got := s.String(); !strings.Contains(got, "id") || !strings.Contains(got, "extra") {
		t.Fatalf("schema %s", got)
	}
	s = &schema.StructType{Fields: []schema.Field{{Name: "id", Type: schema.Long, Nullable: true}, {Name: "o", Type: schema.String, Nullable: true},
		{Name: "_rescued_data", Type: schema.String, Nullable: true}}}
	rr, err := Format{}.Open(ctx, strings.NewReader(data), s, fileformat.ReadOptions{RescuedDataColumn: "_rescued_data", FilePath: "a.json", Options: opts})
	if err != nil {
		t.Fatal(err)
	}
	var rows [][]any
	for {
		r, err := rr.Next()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		rows = append(rows, r)
	}
	if len(rows) != 2 || rows[0][0] != int64(7) || rows[0][1] != `{"x":"a"}` || rows[0][2] != `{"extra":[1],"_file_path":"a.json"}` {
		t.Fatalf("rows %q", rows)
	}
}

// FuzzLenientTape: with every allow* option on, standard JSON still
// parses, and whatever parses is written out as standard JSON.
func FuzzLenientTape(f *testing.F) {
	for _, s := range []string{`{a: 'x', "b": [01, /* c */ 2]}`, `{'a\'': "\q"}`, "{\"a\":\"\t\"} // end", `[1, "x", {"b": null}]`, `/**/`} {
		f.Add([]byte(s))
	}
	syn, err := parseSyntax(map[string]string{"allowComments": "true", "allowUnquotedFieldNames": "true", "allowNumericLeadingZeros": "true",
		"allowBackslashEscapingAnyCharacter": "true", "allowUnquotedControlChars": "true"})
	if err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		tp := tape{syn: syn}
		err := tp.parse(data)
		if json.Valid(data) && err != nil && !strings.Contains(err.Error(), "nesting") {
			t.Fatalf("standard JSON %q refused: %v", data, err)
		}
		if err != nil {
			return
		}
		out := tp.jsonText(nil, 0)
		if !json.Valid(out) {
			t.Fatalf("%q written as %q: not JSON", data, out)
		}
		var std tape
		if err := std.parse(out); err != nil {
			t.Fatalf("%q written as %q: %v", data, out, err)
		}
		if !bytes.Equal(std.jsonText(nil, 0), out) {
			t.Fatalf("%q: not stable: %q then %q", data, out, std.jsonText(nil, 0))
		}
	})
}
