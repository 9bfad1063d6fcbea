package jsontape

import (
	"bytes"
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/tributary-io/tributary/core/formats/fileformat"
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
			syn, err := ParseSyntax(opts)
			if err != nil {
				t.Fatal(err)
			}
			tp := Tape{Syn: syn}
			want := tc.wantOff
			if on {
				want = tc.wantOn
			}
			err = tp.Parse([]byte(tc.record))
			switch {
			case want == "(no value)":
				if !errors.Is(err, ErrNoValue) {
					t.Errorf("%s=%v %q: %v, want no value", name, on, tc.record, err)
				}
			case want == "":
				if err == nil {
					t.Errorf("%s set=%v %q: parsed, want malformed", name, on, tc.record)
				}
			case err != nil:
				t.Errorf("%s set=%v %q: %v", name, on, tc.record, err)
			default:
				if got := string(tp.JSONText(nil, 0)); got != want {
					t.Errorf("%s set=%v %q: %s, want %s", name, on, tc.record, got, want)
				}
			}
		}
	}
	if _, err := ParseSyntax(map[string]string{"allowComments": "maybe"}); !errors.Is(err, fileformat.ErrBadOption) {
		t.Errorf("bad value: %v", err)
	}
}

// FuzzLenientTape: with every allow* option on, standard JSON still
// parses, and whatever parses is written out as standard JSON.
func FuzzLenientTape(f *testing.F) {
	for _, s := range []string{`{a: 'x', "b": [01, /* c */ 2]}`, `{'a\'': "\q"}`, "{\"a\":\"\t\"} // end", `[1, "x", {"b": null}]`, `/**/`} {
		f.Add([]byte(s))
	}
	syn, err := ParseSyntax(map[string]string{"allowComments": "true", "allowUnquotedFieldNames": "true", "allowNumericLeadingZeros": "true",
		"allowBackslashEscapingAnyCharacter": "true", "allowUnquotedControlChars": "true"})
	if err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		tp := Tape{Syn: syn}
		err := tp.Parse(data)
		if json.Valid(data) && err != nil && !strings.Contains(err.Error(), "nesting") {
			t.Fatalf("standard JSON %q refused: %v", data, err)
		}
		if err != nil {
			return
		}
		out := tp.JSONText(nil, 0)
		if !json.Valid(out) {
			t.Fatalf("%q written as %q: not JSON", data, out)
		}
		var std Tape
		if err := std.Parse(out); err != nil {
			t.Fatalf("%q written as %q: %v", data, out, err)
		}
		if !bytes.Equal(std.JSONText(nil, 0), out) {
			t.Fatalf("%q: not stable: %q then %q", data, out, std.JSONText(nil, 0))
		}
	})
}
