package csvfmt

import (
	"errors"
	"fmt"
	"io"
	"reflect"
	"strings"
	"testing"
	"testing/iotest"

	"github.com/tributary-io/tributary/core/formats/csvfmt/csvtok"
)

// tokState is what one tokenizer step leaves behind.
type tokState struct {
	Vals      []string
	Quoted    []bool
	Skip      []bool
	Raw, Bad  string
	Line, Cur int64
	Err       string
}

// tokenizeAll tokenizes in with the line fast path on or off.
func tokenizeAll(t testing.TB, in string, o *Options, lines, oneByte bool) []tokState {
	t.Helper()
	var r io.Reader = strings.NewReader(in)
	if oneByte {
		r = iotest.OneByteReader(r)
	}
	if cut := strings.Index(in, "<ERR>"); cut >= 0 {
		// The reader gives the text before <ERR> in small reads, then fails
		// (the fast path then fills its buffer: the error must come after
		// the same records).
		r = io.MultiReader(iotest.HalfReader(strings.NewReader(in[:cut])), iotest.ErrReader(errors.New("disk on fire")))
	}
	c := o.TokConfig("")
	c.Slow = !lines
	tk := csvtok.New(r, c)
	var out []tokState
	for n := 0; n <= len(in)+1; n++ {
		err := tk.Next()
		if errors.Is(err, io.EOF) {
			return out
		}
		st := tokState{Raw: string(tk.Raw()), Bad: tk.Bad(), Line: tk.Line(), Cur: tk.Cur()}
		if err != nil {
			st.Err = err.Error()
			return append(out, st)
		}
		for i := range tk.Len() {
			k := tk.Token(i)
			st.Vals = append(st.Vals, tk.Value(i))
			st.Quoted = append(st.Quoted, k.Quoted)
			st.Skip = append(st.Skip, k.Skip)
		}
		out = append(out, st)
	}
	t.Fatalf("more records than input bytes")
	return nil
}

// TestSplitLineMatchesFieldPath: the line fast path gives the same
// records (values, quoting, raw text, line numbers, errors) as the
// rune-by-rune path, for the cases it takes and the ones it leaves.
func TestSplitLineMatchesFieldPath(t *testing.T) {
	inputs := []string{
		"a,b,c\n1,2,3\n",
		"a,b\r\n1,2\r\n\r\n  \n x , y \n",
		"a,\"b\"\n1,2\rz,3\n",
		"\uFEFFh1,h2\n\xff,\xfe\n",
		"a;b\n1;2\n#c\n4;5",
		",,\n,\n\n",
		"é,ü\n\t1\t,\t2\t\n",
		"\"a\",\"b\"\n\"\",x,\"\"\n\"a\\\"b\",c\n",
		"\"a\"b,c\n\"a\" ,b\n \"a\",b\n\"a\"\"b\",c\n",
		"x,\"y\nz\",w\n\"abc\n'q',r\n",
		"a,\"日本\",\"x;y\"\r\n,\"\",\n",
	}
	optsList := []map[string]string{
		nil,
		{"sep": ";", "comment": "#"},
		{"ignoreLeadingWhiteSpace": "true", "ignoreTrailingWhiteSpace": "true"},
		{"sep": "\t", "ignoreLeadingWhiteSpace": "true"},
		{"maxColumns": "2"},
		{"quote": ""},
		{"skipRows": "1"},
		{"escape": `"`},
		{"multiLine": "true", "ignoreLeadingWhiteSpace": "true"},
		{"quote": "'", "unescapedQuoteHandling": "SKIP_VALUE"},
		{"unescapedQuoteHandling": "RAISE_ERROR", "ignoreTrailingWhiteSpace": "true"},
		{"charToEscapeQuoteEscaping": "#", "escape": "#"},
	}
	for _, in := range inputs {
		for _, m := range optsList {
			o, err := ParseOptions(m)
			if err != nil {
				t.Fatal(err)
			}
			want := tokenizeAll(t, in, &o, false, false)
			for _, oneByte := range []bool{false, true} {
				if got := tokenizeAll(t, in, &o, true, oneByte); !reflect.DeepEqual(got, want) {
					t.Errorf("input %q options %v (one-byte reads %v):\nfast %+v\nslow %+v", in, m, oneByte, got, want)
				}
			}
		}
	}
}

// FuzzSplitLine checks the line fast path against the rune-by-rune path
// on any input and options.
func FuzzSplitLine(f *testing.F) {
	f.Add("a,b\n\"c,\"\"d\",e\r\n x ,y\n", ",", `"`, "#", true, false)
	f.Add("a;b\n;;\n\n", ";", "", "", false, true)
	f.Add("\uFEFFx\ty\r\n\xff\tz\rq\n", "\t", `'`, "", true, true)
	f.Add("\"a\"\"b\",\"\"\n\"x\\\"\",y", ",", `"`, `"`, false, true)
	f.Fuzz(func(t *testing.T, in, sep, quote, escape string, lead, trail bool) {
		opts := map[string]string{"sep": sep, "quote": quote, "escape": escape, "maxColumns": "8"}
		if len(in) > 0 {
			opts["multiLine"] = fmt.Sprint(in[0]%2 == 0)
			opts["unescapedQuoteHandling"] = UnescapedQuoteHandlings()[int(in[0])%5]
		}
		if lead {
			opts["ignoreLeadingWhiteSpace"] = "true"
		}
		if trail {
			opts["ignoreTrailingWhiteSpace"] = "true"
		}
		o, err := ParseOptions(opts)
		if err != nil {
			return
		}
		want := tokenizeAll(t, in, &o, false, false)
		if got := tokenizeAll(t, in, &o, true, false); !reflect.DeepEqual(got, want) {
			t.Fatalf("fast %+v\nslow %+v", got, want)
		}
	})
}
