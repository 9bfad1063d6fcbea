package csvfmt

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/tributary-io/tributary/core/formats/fileformat"
)

// randomCSV is a random CSV document for inference: columns whose values
// mostly keep one kind and now and then change it (so that types widen in
// the middle of the file, where blocks start), nulls, quoted values, values
// that make records malformed under RAISE_ERROR, blank and comment lines,
// every line end.
func randomCSV(rng *rand.Rand, header bool) string {
	kinds := [][]string{
		{"1", "-7", "0", "42", "+3", "١٢"},
		{"2147483648", "-9000000000", "5"},
		{"99999999999999999999", "123456789012345678901234", "7"},
		{"123.45", "7", "0.5", "-1.25", `"1,234"`},
		{"1.5e3", "NaN", "Inf", "-Inf", "2.5"},
		{"2020-01-01", "1999-12-31", "2020-02-30"},
		{"2020-01-01T10:00:00Z", "2020-01-01 10:00:00", "2021-03-04T05:06:07.123456Z", "2020-01-01"},
		{"true", "FALSE", "True"},
		{"abc", "x y", `"q,x"`, `"a""b"`, `"\"z"`, "é"},
		{"", `""`, "null", " 1 ", "1 "},
		{`a"b`, `"bad"x`, `"unclosed`},
	}
	cols := 1 + rng.IntN(5)
	prof := make([]int, cols)
	for i := range prof {
		prof[i] = rng.IntN(len(kinds))
	}
	ends := []string{"\n", "\n", "\n", "\r\n", "\r"}
	var b strings.Builder
	if header {
		for i := range cols {
			if i > 0 {
				b.WriteByte(',')
			}
			fmt.Fprintf(&b, "c%d", rng.IntN(cols+1))
		}
		b.WriteString(ends[rng.IntN(len(ends))])
	}
	for r := rng.IntN(120); r > 0; r-- {
		switch rng.IntN(30) {
		case 0:
			b.WriteString(ends[rng.IntN(len(ends))])
			continue
		case 1:
			b.WriteString("# a comment, \"x")
			b.WriteString(ends[rng.IntN(len(ends))])
			continue
		}
		n := cols
		if rng.IntN(20) == 0 {
			n = rng.IntN(cols + 2)
		}
		for i := range n {
			if i > 0 {
				b.WriteByte(',')
			}
			k := len(kinds) - 2 // null-ish
			if i < cols && rng.IntN(8) != 0 {
				k = prof[i]
			}
			if rng.IntN(25) == 0 {
				k = rng.IntN(len(kinds))
				if rng.IntN(3) == 0 {
					prof[i%cols] = k // the column changes from here on
				}
			}
			v := kinds[k]
			b.WriteString(v[rng.IntN(len(v))])
		}
		if rng.IntN(60) != 0 || r > 1 {
			b.WriteString(ends[rng.IntN(len(ends))])
		}
	}
	return b.String()
}

// cutReader gives the first n bytes of its content, then an error.
type cutReader struct {
	r *bytes.Reader
	n int
}

var errCutRead = errors.New("read failed")

func (f *cutReader) Read(p []byte) (int, error) {
	if f.n <= 0 {
		return 0, errCutRead
	}
	if len(p) > f.n {
		p = p[:f.n]
	}
	n, err := f.r.Read(p)
	f.n -= n
	if errors.Is(err, io.EOF) {
		return n, errCutRead
	}
	return n, err
}

// inferAll infers files with par, returning the schema, the sample and
// the first error, as text.
func inferAll(opts fileformat.InferOptions, files []string, fail []int, par parConfig) string {
	in := newInferrer(opts)
	in.par = par
	var out strings.Builder
	for i, f := range files {
		var r io.Reader = strings.NewReader(f)
		if fail[i] >= 0 {
			r = &cutReader{r: bytes.NewReader([]byte(f)), n: fail[i]}
		}
		if err := in.Add(context.Background(), fmt.Sprint("f", i), r); err != nil {
			fmt.Fprintf(&out, "file %d: %v\n", i, err)
		}
	}
	fmt.Fprintf(&out, "%s\n%+v\n", in.Schema(), in.Sampled())
	return out.String()
}

// TestInferParallelRandom: inferring random documents in blocks of lines
// on workers gives the serial inference's schema, sample counts and
// errors (FAILFAST's malformed record, parser limits, read errors, each
// with its line), under random options and block sizes down to a few
// bytes (so that blocks start everywhere, types widen inside blocks and
// blocks are folded again when their guess was wrong).
func TestInferParallelRandom(t *testing.T) {
	optsList := []map[string]string{
		{"header": "true"},
		{"header": "true", "unescapedQuoteHandling": "RAISE_ERROR"},
		{"header": "false", "comment": "#"},
		{"header": "true", "preferDate": "false", "nullValue": "7"},
		{"header": "true", "ignoreLeadingWhiteSpace": "true", "ignoreTrailingWhiteSpace": "true", "comment": "#"},
		{"header": "true", "maxColumns": "4", "unescapedQuoteHandling": "RAISE_ERROR"},
		{"header": "true", "escape": `"`, "emptyValue": "5"},
	}
	modes := []fileformat.ParseMode{"", fileformat.FailFast, fileformat.DropMalformed}
	rng := rand.New(rand.NewPCG(3, 17))
	n := 3000
	if testing.Short() {
		n = 300
	}
	parallelFolds := 0
	for i := 0; i < n; i++ {
		m := optsList[rng.IntN(len(optsList))]
		opts := fileformat.InferOptions{
			Options: m, InferColumnTypes: rng.IntN(8) != 0, PrefersDecimal: rng.IntN(2) == 0,
			Mode: modes[rng.IntN(len(modes))],
		}
		files := make([]string, 1+rng.IntN(3))
		fail := make([]int, len(files))
		for k := range files {
			files[k] = randomCSV(rng, m["header"] == "true")
			fail[k] = -1
			if rng.IntN(10) == 0 {
				fail[k] = rng.IntN(len(files[k]) + 1)
			}
		}
		want := inferAll(opts, files, fail, parConfig{workers: 1})
		par := parConfig{workers: 2 + rng.IntN(2), block: 1 + rng.IntN(200)}
		if got := inferAll(opts, files, fail, par); got != want {
			t.Fatalf("case %d options %v mode %q infer %v prefersDecimal %v blocks %+v files %q fail %v:\nparallel %s\nserial   %s",
				i, m, opts.Mode, opts.InferColumnTypes, opts.PrefersDecimal, par, files, fail, got, want)
		}
		parallelFolds++
	}
	if parallelFolds == 0 {
		t.Fatal("no case compared")
	}
}

// TestInferParallelFoldsAgain: a block whose guess was wrong is folded
// again from the inferrer's type: DECIMAL(5,2) meeting "7" stays
// DECIMAL(5,2) (merging with the block's INT would give DECIMAL(12,2)).
func TestInferParallelFoldsAgain(t *testing.T) {
	doc := "a\n123.45\n" + strings.Repeat("7\n", 50)
	opts := fileformat.InferOptions{Options: map[string]string{"header": "true"}, InferColumnTypes: true, PrefersDecimal: true}
	want := inferAll(opts, []string{doc}, []int{-1}, parConfig{workers: 1})
	if !strings.Contains(want, "decimal(5,2)") {
		t.Fatalf("serial inference: %s, want decimal(5,2)", want)
	}
	for _, block := range []int{1, 4, 9, 16} {
		if got := inferAll(opts, []string{doc}, []int{-1}, parConfig{workers: 2, block: block}); got != want {
			t.Fatalf("block %d: %s, want %s", block, got, want)
		}
	}
}

// TestInferParallelStable: a block folded from a stale guess to the
// inferrer's own type is taken as it is only when every value of it keeps
// that type: after a DOUBLE block, a block of "1,234" (DECIMAL(4,0) from
// nothing, widened to DOUBLE by the "1.5" after it) makes the column STRING, as the
// serial fold does ("1,234" is no double).
func TestInferParallelStable(t *testing.T) {
	doc := "a\n1.5\n\"1,234\"\n1.5\n"
	opts := fileformat.InferOptions{Options: map[string]string{"header": "true"}, InferColumnTypes: true}
	want := inferAll(opts, []string{doc}, []int{-1}, parConfig{workers: 1})
	if !strings.Contains(want, "a:string") {
		t.Fatalf("serial inference: %s, want a string", want)
	}
	for block := 1; block <= 12; block++ {
		if got := inferAll(opts, []string{doc}, []int{-1}, parConfig{workers: 2, block: block}); got != want {
			t.Fatalf("block %d: %s, want %s", block, got, want)
		}
	}
}
