package csvfmt

import (
	"context"
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/tributary-io/tributary/core/formats/fileformat"
)

// invalidUTF8 are values with bytes that are not UTF-8 (alone, around
// digits, a truncated sequence before a delimiter) and their valid
// look-alikes: the fold must read them as the validating tokenizer does.
var invalidUTF8 = []string{"\xff", "1\xff", "\xff1", "\xe6\x97", "2\xc3", "\xef\xbf\xbd", "\uFFFD", "1.5\x80", "\xf0\x9f\x98", "tru\xe5", "é"}

// typedCSV is a random document of typed columns (each of one kind but
// for the invalid bytes TestInferSkipUTF8Random adds), "\n" line ends.
func typedCSV(rng *rand.Rand, header bool) string {
	kinds := [][]string{{"1", "-7", "42"}, {"9000000000", "5"}, {"1.5", "-0.25", "3"}, {"2024-03-01T00:00:00.037527Z", "2024-03-01T00:00:00Z"}, {"2024-03-01"}, {"true", "FALSE"}}
	cols := make([]int, 1+rng.IntN(4))
	var b strings.Builder
	for i := range cols {
		cols[i] = rng.IntN(len(kinds))
		if header {
			if i > 0 {
				b.WriteByte(',')
			}
			fmt.Fprintf(&b, "c%d", i)
		}
	}
	if header {
		b.WriteByte('\n')
	}
	for r := rng.IntN(60); r > 0; r-- {
		for i, k := range cols {
			if i > 0 {
				b.WriteByte(',')
			}
			b.WriteString(kinds[k][rng.IntN(len(kinds[k]))])
		}
		b.WriteByte('\n')
	}
	return b.String()
}

// inferSkip infers files serially or in blocks, validating UTF-8 in the
// fold's tokenizers (check) or not: the schema, the sample and the errors
// as text.
func inferSkip(opts fileformat.InferOptions, files []string, par parConfig, check bool) string {
	in := newInferrer(opts)
	in.par, in.checkUTF8 = par, check
	var out strings.Builder
	for i, f := range files {
		if err := in.Add(context.Background(), fmt.Sprint("f", i), strings.NewReader(f)); err != nil {
			fmt.Fprintf(&out, "file %d: %v\n", i, err)
		}
	}
	fmt.Fprintf(&out, "%s\n%+v\n", in.Schema(), in.Sampled())
	return out.String()
}

// TestInferSkipUTF8Random: inference whose tokenizers skip UTF-8
// validation (repairing the values the fold reads) gives the validating
// inference's schema, counts and errors on random documents with bytes
// that are not UTF-8 in every kind of column, serially and in blocks,
// under options whose nullValue or nanValue is U+FFFD (what a repaired
// byte reads as) or not UTF-8 at all (validation then stays on).
func TestInferSkipUTF8Random(t *testing.T) {
	optsList := []map[string]string{
		{"header": "true"},
		{"header": "true", "nullValue": "\uFFFD"},
		{"header": "true", "nanValue": "\uFFFD", "positiveInf": "1\uFFFD"},
		{"header": "true", "nullValue": "\xff"},
		{"header": "false", "comment": "#", "unescapedQuoteHandling": "RAISE_ERROR"},
		{"header": "true", "ignoreLeadingWhiteSpace": "true", "ignoreTrailingWhiteSpace": "true", "emptyValue": "\xff"},
		{"header": "true", "escape": `"`, "preferDate": "false"},
	}
	rng := rand.New(rand.NewPCG(5, 23))
	n := 3000
	if testing.Short() {
		n = 300
	}
	for i := 0; i < n; i++ {
		m := optsList[rng.IntN(len(optsList))]
		opts := fileformat.InferOptions{Options: m, InferColumnTypes: true, PrefersDecimal: rng.IntN(2) == 0}
		files := make([]string, 1+rng.IntN(2))
		for k := range files {
			doc := randomCSV(rng, m["header"] == "true")
			if rng.IntN(2) == 0 {
				doc = typedCSV(rng, m["header"] == "true")
			}
			if rng.IntN(2) == 0 {
				// "\n" line ends only: the line fast path takes
				// every line (a "\r" sends lines to the other path).
				doc = strings.ReplaceAll(strings.ReplaceAll(doc, "\r\n", "\n"), "\r", "\n")
			}
			// Invalid bytes in place of some values (after a delimiter
			// or a line end), and now and then inside quotes.
			// Half the documents get lone "\xff" bytes only: read as
			// U+FFFD, the nullValue or nanValue of some options.
			pool := invalidUTF8
			if rng.IntN(2) == 0 {
				pool = invalidUTF8[:1]
			}
			var b strings.Builder
			for j := 0; j < len(doc); j++ {
				b.WriteByte(doc[j])
				if (doc[j] == ',' || doc[j] == '\n') && rng.IntN(6) == 0 {
					v := pool[rng.IntN(len(pool))]
					if rng.IntN(5) == 0 {
						v = `"` + v + `"`
					}
					b.WriteString(v)
				}
			}
			files[k] = b.String()
		}
		want := inferSkip(opts, files, parConfig{workers: 1}, true)
		for _, par := range []parConfig{{workers: 1}, {workers: 2 + rng.IntN(2), block: 1 + rng.IntN(200)}} {
			if got := inferSkip(opts, files, par, false); got != want {
				t.Fatalf("case %d options %q blocks %+v files %q:\nskipping   %s\nvalidating %s", i, m, par, files, got, want)
			}
		}
	}
}

// TestInferSkipUTF8Repairs: values the fold must repair to infer as the
// validating inference does (a byte read as the nullValue or the
// nanValue U+FFFD), with the tokenizer skipping validation.
func TestInferSkipUTF8Repairs(t *testing.T) {
	for _, tt := range []struct {
		opts map[string]string
		doc  string
		want string
	}{
		{map[string]string{"header": "true", "nullValue": "\uFFFD"}, "a,b\n1,\xff\n2,3\n", "struct<a:integer,b:integer>"},
		{map[string]string{"header": "true", "nanValue": "\uFFFD"}, "a\n1.5\n\xff\n", "struct<a:double>"},
		{map[string]string{"header": "true"}, "a\n1\n1\xff\n", "struct<a:string>"},
	} {
		for _, check := range []bool{true, false} {
			in := newInferrer(fileformat.InferOptions{Options: tt.opts, InferColumnTypes: true})
			in.par.workers, in.checkUTF8 = 1, check
			if err := in.Add(context.Background(), "f", strings.NewReader(tt.doc)); err != nil {
				t.Fatal(err)
			}
			if got := in.Schema().String(); got != tt.want {
				t.Errorf("%q %v (validating %v): %s, want %s", tt.doc, tt.opts, check, got, tt.want)
			}
		}
	}
}

// TestRepair: a value that is not UTF-8 reads as the validating
// tokenizer's (one U+FFFD per invalid byte), the nullValue compared
// after; without SkipUTF8Check values are as read.
func TestRepair(t *testing.T) {
	for _, tt := range []struct {
		in, null, want string
		isNull         bool
	}{
		{"1\xff", "", "1\uFFFD", false},
		{"\xe6\x97,", "", "\uFFFD\uFFFD", false},
		{"\xff", "\uFFFD", "", true},
		{"\xf0\x9f\x98", "\uFFFD\uFFFD\uFFFD", "", true},
		{"ok", "", "ok", false},
		{"é", "", "é", false},
	} {
		o, err := ParseOptions(map[string]string{"nullValue": tt.null})
		if err != nil {
			t.Fatal(err)
		}
		for _, skip := range []bool{false, true} {
			tk := newTokenizer(strings.NewReader(tt.in+"\n"), &o, "")
			if skip {
				tk.SkipUTF8Check()
			}
			if err := tk.Next(); err != nil {
				t.Fatal(err)
			}
			s, null := tokenView(tk, 0, &o)
			if !null {
				s, null = repair(tk, 0, s, &o)
			}
			if s != tt.want || null != tt.isNull {
				t.Errorf("%q (nullValue %q, skip %v): %q, %v; want %q, %v", tt.in, tt.null, skip, s, null, tt.want, tt.isNull)
			}
		}
	}
}
