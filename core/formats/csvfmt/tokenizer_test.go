package csvfmt

import (
	"errors"
	"io"
	"reflect"
	"strings"
	"testing"
	"unicode/utf8"
)

// records tokenizes in with the options and returns each record's values
// (null values as "<null>").
func records(t testing.TB, in string, opts map[string]string, lineSep string) ([][]string, []string, error) {
	o, err := ParseOptions(opts)
	if err != nil {
		t.Fatal(err)
	}
	tk := newTokenizer(strings.NewReader(in), &o, lineSep)
	var out [][]string
	var bad []string
	for {
		err := tk.Next()
		if errors.Is(err, io.EOF) {
			return out, bad, nil
		}
		if err != nil {
			return out, bad, err
		}
		var rec []string
		for i := range tk.Len() {
			s, null := tokenValue(tk, i, &o)
			if null {
				s = "<null>"
			}
			rec = append(rec, s)
		}
		out = append(out, rec)
		bad = append(bad, tk.Bad())
	}
}

func TestTokenizer(t *testing.T) {
	tests := []struct {
		name    string
		in      string
		opts    map[string]string
		lineSep string
		want    [][]string
	}{
		{"plain", "a,b\n1,2\n", nil, "", [][]string{{"a", "b"}, {"1", "2"}}},
		{"no final newline, CRLF and CR", "a,b\r\n1,2\r3,4", nil, "", [][]string{{"a", "b"}, {"1", "2"}, {"3", "4"}}},
		{"empty unquoted is null, quoted empty is null by default", "a,,\"\"\n", nil, "", [][]string{{"a", "<null>", "<null>"}}},
		{"emptyValue", "a,,\"\"\n", map[string]string{"emptyValue": "E"}, "", [][]string{{"a", "<null>", "E"}}},
		{"nullValue", "NA,,\"\"\n", map[string]string{"nullValue": "NA"}, "", [][]string{{"<null>", "<null>", ""}}},
		{"blank and white-space lines skipped", "a\n\n   \nb\n", nil, "", [][]string{{"a"}, {"b"}}},
		{"quoted delimiter; a doubled quote is not an escape by default", `"a,b","c""d"` + "\n", nil, "", [][]string{{"a,b", `c""d"`}}},
		{"doubled quote with escape set to the quote (RFC 4180)", `"a,b","c""d"` + "\n", map[string]string{"escape": `"`}, "", [][]string{{"a,b", `c"d`}}},
		{"backslash escapes a quote", `"c\"d",e` + "\n", nil, "", [][]string{{`c"d`, "e"}}},
		{"other backslashes kept", `"a\nb",c\d` + "\n", nil, "", [][]string{{`a\nb`, `c\d`}}},
		{"escaped escape before the closing quote", `"a\\",b` + "\n", nil, "", [][]string{{`a\`, "b"}}},
		{"charToEscapeQuoteEscaping", `"a#\",b` + "\n", map[string]string{"charToEscapeQuoteEscaping": "#"}, "", [][]string{{`a\`, "b"}}},
		{"escape option", `"a'"b",c` + "\n", map[string]string{"escape": "'"}, "", [][]string{{`a"b`, "c"}}},
		{"quote option", `'a,b',c` + "\n", map[string]string{"quote": "'"}, "", [][]string{{"a,b", "c"}}},
		{"quoting off", `"a,b"` + "\n", map[string]string{"quote": ""}, "", [][]string{{`"a`, `b"`}}},
		{"semicolon sep", "a;b;c\n", map[string]string{"sep": ";"}, "", [][]string{{"a", "b", "c"}}},
		{"tab sep escape", "a\tb\n", map[string]string{"sep": `\t`}, "", [][]string{{"a", "b"}}},
		{"multi-character sep", "a||b||c\n", map[string]string{"sep": "||"}, "", [][]string{{"a", "b", "c"}}},
		{"quoted newline, multiLine false: records are lines", "\"a\nb\",c\n", nil, "", [][]string{{"a"}, {`b"`, "c"}}},
		{"quoted newline, multiLine", "\"a\nb\",c\nd,e\n", map[string]string{"multiLine": "true"}, "", [][]string{{"a\nb", "c"}, {"d", "e"}}},
		{"quoted CRLF, multiLine", "\"a\r\nb\",c\r\n", map[string]string{"multiLine": "true"}, "", [][]string{{"a\r\nb", "c"}}},
		{"comment lines", "#x,\"y\na,b\n", map[string]string{"comment": "#"}, "", [][]string{{"a", "b"}}},
		{"no comment by default", "#x\n", nil, "", [][]string{{"#x"}}},
		{"white space kept by default", " a , b \n", nil, "", [][]string{{" a ", " b "}}},
		{"ignoreLeadingWhiteSpace", " a , \"b\" \n", map[string]string{"ignoreLeadingWhiteSpace": "true"}, "", [][]string{{"a ", "b"}}},
		{"ignoreTrailingWhiteSpace", " a , b \n", map[string]string{"ignoreTrailingWhiteSpace": "true"}, "", [][]string{{" a", " b"}}},
		{"byte order mark", "\uFEFFid,name\n", nil, "", [][]string{{"id", "name"}}},
		{"lineSep", "a,b|c,d|", nil, "|", [][]string{{"a", "b"}, {"c", "d"}}},
		{"unescaped quote, STOP_AT_DELIMITER", `"a"b,c` + "\n" + `a"b,c` + "\n", nil, "", [][]string{{`a"b`, "c"}, {`a"b`, "c"}}},
		{"unescaped quote, BACK_TO_DELIMITER", `"a"b,c` + "\n", map[string]string{"unescapedQuoteHandling": "BACK_TO_DELIMITER"}, "", [][]string{{`"a"b`, "c"}}},
		{"unescaped quote, STOP_AT_CLOSING_QUOTE", `"a"b,c",d` + "\n", map[string]string{"unescapedQuoteHandling": "STOP_AT_CLOSING_QUOTE"}, "", [][]string{{`a"b,c`, "d"}}},
		{"unescaped quote, SKIP_VALUE", `"a"b,c` + "\n" + `x"y,z` + "\n", map[string]string{"unescapedQuoteHandling": "SKIP_VALUE"}, "", [][]string{{"<null>", "c"}, {"<null>", "z"}}},
		{"unicode values", "é,日本\n", nil, "", [][]string{{"é", "日本"}}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, _, err := records(t, tc.in, tc.opts, tc.lineSep)
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(got, tc.want) {
				t.Errorf("got %q, want %q", got, tc.want)
			}
		})
	}
}

func TestTokenizerRaiseError(t *testing.T) {
	_, bad, err := records(t, `"a"b,c`+"\n"+`x"y`+"\n"+"ok\n", map[string]string{"unescapedQuoteHandling": "RAISE_ERROR"}, "")
	if err != nil {
		t.Fatal(err)
	}
	if len(bad) != 3 || bad[0] == "" || bad[1] == "" || bad[2] != "" {
		t.Errorf("bad %q, want the first two records malformed", bad)
	}
}

func TestTokenizerLimits(t *testing.T) {
	_, _, err := records(t, "a,b,c\n", map[string]string{"maxColumns": "2"}, "")
	if !errors.Is(err, ErrLimit) || !strings.Contains(err.Error(), "maxColumns=2") {
		t.Errorf("maxColumns: %v", err)
	}
	_, _, err = records(t, "abc,d\n", map[string]string{"maxCharsPerColumn": "2"}, "")
	if !errors.Is(err, ErrLimit) || !strings.Contains(err.Error(), "maxCharsPerColumn=2") {
		t.Errorf("maxCharsPerColumn: %v", err)
	}
	if _, _, err = records(t, "ab,d\n", map[string]string{"maxCharsPerColumn": "2"}, ""); err != nil {
		t.Errorf("within maxCharsPerColumn: %v", err)
	}
}

func TestOptionsErrors(t *testing.T) {
	for _, m := range []map[string]string{
		{"sep": ""}, {"sep": `\`}, {"sep": `\x`}, {"quote": "ab"}, {"escape": "ab"}, {"comment": "##"},
		{"header": "yes"}, {"maxColumns": "0"}, {"maxCharsPerColumn": "-2"}, {"unescapedQuoteHandling": "x"},
		{"sep": "a", "quote": "a"},
	} {
		if _, err := ParseOptions(m); err == nil {
			t.Errorf("%v: no error", m)
		}
	}
	if d, err := Delimiter(`\u0000`); err != nil || d != "\x00" {
		t.Errorf(`\u0000: %q %v`, d, err)
	}
}

// FuzzTokenizer checks that any input and options tokenize without a
// panic, that every record is valid UTF-8, and that the plain reading of
// a value-only input round-trips.
func FuzzTokenizer(f *testing.F) {
	f.Add("a,b\n\"c,\"\"d\",e\r\n", ",", `"`, `\`, false, "STOP_AT_DELIMITER")
	f.Add("\"a\nb\",c\n#x\n", ";", "'", "'", true, "STOP_AT_CLOSING_QUOTE")
	f.Add("\uFEFF\"x\"y,z", "||", `"`, `"`, true, "BACK_TO_DELIMITER")
	f.Add("\xff\xfe\"", ",", "", "", false, "RAISE_ERROR")
	f.Fuzz(func(t *testing.T, in, sep, quote, escape string, multi bool, uqh string) {
		opts := map[string]string{"sep": sep, "quote": quote, "escape": escape, "multiLine": "false", "unescapedQuoteHandling": uqh, "comment": "#", "maxCharsPerColumn": "100000"}
		if multi {
			opts["multiLine"] = "true"
		}
		o, err := ParseOptions(opts)
		if err != nil {
			return
		}
		tk := newTokenizer(strings.NewReader(in), &o, "")
		for n := 0; ; n++ {
			err := tk.Next()
			if err != nil {
				break
			}
			if n > len(in)+1 {
				t.Fatalf("more records than input bytes")
			}
			for i := range tk.Len() {
				if !utf8.ValidString(tk.Value(i)) {
					t.Fatalf("invalid UTF-8 value %q", tk.Value(i))
				}
			}
		}
	})
}

func TestSkipRowsAndPreferDate(t *testing.T) {
	got, _, err := records(t, "junk \"x\n\n# c\na,b\n", map[string]string{"skipRows": "3"}, "")
	if err != nil || !reflect.DeepEqual(got, [][]string{{"a", "b"}}) {
		t.Errorf("skipRows=3: %q %v", got, err)
	}
	if got, _, _ := records(t, "a\n", map[string]string{"skipRows": "5"}, ""); len(got) != 0 {
		t.Errorf("skipRows beyond the file: %q", got)
	}
	o := Defaults()
	if k := o.inferField(ctype{}, "2024-01-31", false).K; k != kDate {
		t.Errorf("preferDate default: %v", k)
	}
	o.PreferDate = false
	if k := o.inferField(ctype{}, "2024-01-31", false).K; k != kTimestamp {
		t.Errorf("preferDate=false: %v", k)
	}
}
