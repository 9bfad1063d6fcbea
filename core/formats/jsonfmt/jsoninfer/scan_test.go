package jsoninfer

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"runtime"
	"strconv"
	"strings"
	"testing"

	"github.com/tributary-io/tributary/core/formats/fileformat"
	"github.com/tributary-io/tributary/core/formats/jsonfmt/jsontape"
	"github.com/tributary-io/tributary/core/schema"
)

// scanNames are field names: case collisions, escapes that spell another
// name, unicode, invalid UTF-8, names a hint reaches, the default corrupt
// record column and the empty name (dropped).
var scanNames = []string{
	`"a"`, `"A"`, `"b"`, `"B"`, `"c"`, `"nested"`, `"Nested"`, `"list"`, `"LIST"`, `"ts"`,
	`"a\u0062"`, `"ab"`, `"\u0041"`, `"\u00e9t\u00e9"`, `"été"`, `"ÉTÉ"`, `"x y"`, `"k\"q"`,
	`"nl\n"`, `"sl\/"`, `"\ud83d\ude00"`, `"😀"`, `"\ud800"`, "\"bad\xffutf\"", "\"\xe9\"", `""`,
	`"_corrupt_record"`, `"_rescued_data"`, `"d"`,
}

// oddNames are names only the allow* options accept (or nothing).
var oddNames = []string{`'a'`, `'q\'s'`, `b`, `$x`, `A1`, `"\q"`, "\"tab\there\"", `"\x"`, `"\u12"`}

// scanNumbers are numbers at the edges of long, decimal(38) and double.
var scanNumbers = []string{
	"0", "-0", "7", "-7", "123", "999999999999999999", "-999999999999999999",
	"1000000000000000000", "9223372036854775807", "-9223372036854775808",
	"9223372036854775808", "-9223372036854775809", "12345678901234567890123456789012345678",
	"123456789012345678901234567890123456789", "1.5", "-0.0", "0.1", "1.50", "1e3", "1E-3",
	"1.5e+3", "2.5E-40", "1e400", "-1e-400", "12345678901234567890.123456789012345678",
	"0.00000000000000000000000000000000000001", "1.0e5000", "3.14159265358979323846264338327950288",
}

// oddNumbers are numbers only the allow* options accept (or nothing).
var oddNumbers = []string{"NaN", "Infinity", "-Infinity", "+Infinity", "007", "-00.5", "00", "+1", "1.", "-", ".5", "1e", "1e+", "-I", "0x1F"}

// scanStrings are string values: escapes, unicode, invalid UTF-8,
// timestamps and dates, empty.
var scanStrings = []string{
	`""`, `"x"`, `"text with spaces"`, `"esc \" \\ \/ \b \f \n \r \t"`, `"\u00e9\u4e2d"`,
	`"\ud83d\ude00 pair"`, `"\udc00 lone"`, `"Grüße"`, "\"\xff\xfe bytes\"", `"2024-03-01T00:00:00.037527Z"`,
	`"2024-03-01 12:34:56"`, `"2024-03-01"`, `"01/03/2024 10:00"`, `"12:00"`, `"1.5"`, `"true"`,
	`"a long string value that runs past eight bytes more than once, several times over"`,
}

// oddStrings are strings only the allow* options accept (or nothing).
var oddStrings = []string{`'single'`, `"\q"`, `"\'"`, "\"raw\ttab\"", "\"raw\x01ctl\"", `"\u12"`, `"unterminated`, `"\`}

// scanDoc writes random JSON lines for the scanner's differential test.
// odd (0..100) is the percentage of non-standard or broken tokens.
func scanDoc(r *rand.Rand, lines, odd int) []byte {
	pick := func(std, non []string) string {
		if r.IntN(100) < odd {
			return non[r.IntN(len(non))]
		}
		return std[r.IntN(len(std))]
	}
	sp := func() string {
		if r.IntN(8) > 0 {
			return ""
		}
		if r.IntN(100) < odd {
			return []string{" /* c */ ", "\f", "// c\n", "/"}[r.IntN(4)]
		}
		return []string{" ", "\t", "  "}[r.IntN(3)]
	}
	var value func(depth int) string
	object := func(depth int) string {
		var b strings.Builder
		b.WriteString("{" + sp())
		for i := range r.IntN(5) {
			if i > 0 {
				b.WriteString(sp() + "," + sp())
			}
			b.WriteString(pick(scanNames, oddNames) + sp() + ":" + sp() + value(depth+1))
		}
		b.WriteString(sp() + "}")
		return b.String()
	}
	value = func(depth int) string {
		switch k := r.IntN(20); {
		case k < 3 && depth < 5:
			return object(depth)
		case k < 5 && depth < 5:
			var b strings.Builder
			b.WriteString("[" + sp())
			for i := range r.IntN(4) {
				if i > 0 {
					b.WriteString(sp() + "," + sp())
				}
				b.WriteString(value(depth + 1))
			}
			b.WriteString(sp() + "]")
			return b.String()
		case k < 7:
			return "null"
		case k < 8:
			return []string{"true", "false"}[r.IntN(2)]
		case k < 13:
			return pick(scanNumbers, oddNumbers)
		case k < 19:
			return pick(scanStrings, oddStrings)
		}
		if r.IntN(100) < odd {
			return []string{"tru", "nul", "nulll", "True", "{", "[", "}", "[1,,2]", `{"a" 1}`, `{"a":}`, `{,}`, "[1 2]", "{\"a\":1,}"}[r.IntN(13)]
		}
		return strconv.Itoa(r.IntN(100))
	}
	var b bytes.Buffer
	for range lines {
		switch k := r.IntN(60); {
		case k == 0:
			b.WriteString("\n")
		case k == 1:
			b.WriteString("  \t\n")
		case k == 2:
			b.WriteString("// only a comment\n")
		case k == 3:
			b.WriteString("/* only */ \n")
		case k < 8:
			fmt.Fprintf(&b, "[%s]\n", object(1)+strings.Repeat(","+object(1), r.IntN(3)))
		case k == 8:
			fmt.Fprintf(&b, "[%s, %s]\n", object(1), value(1))
		case k == 9:
			b.WriteString("[ ]\n")
		case k == 10:
			fmt.Fprintf(&b, "%s\n", value(0))
		case k == 11:
			fmt.Fprintf(&b, "%s %s\n", object(0), []string{"x", "{}", "// c", "/* c */", ",", "\f"}[r.IntN(6)])
		case k == 12:
			b.WriteString(strings.Repeat("[", 999+r.IntN(3)) + strings.Repeat("]", 999+r.IntN(3)) + "\n")
		case k == 13:
			d := 998 + r.IntN(4)
			b.WriteString(`{"deep":` + strings.Repeat(`{"a":`, d) + "1" + strings.Repeat("}", d) + "}\n")
		case k == 14:
			o := object(0)
			b.WriteString(o[:r.IntN(len(o)+1)] + "\n") // truncated
		default:
			b.WriteString(sp() + object(0) + sp() + "\n")
		}
	}
	return b.Bytes()
}

// scanOptions builds inference options from bits: every option the
// inference consults.
func scanOptions(t testing.TB, bits uint32) fileformat.InferOptions {
	t.Helper()
	on := func(i int) bool { return bits&(1<<i) != 0 }
	opts := fileformat.InferOptions{
		InferColumnTypes:   !on(0),
		PrefersDecimal:     on(1),
		PrimitivesAsString: on(2),
		DropFieldIfAllNull: on(3),
		Options:            map[string]string{},
	}
	if on(4) {
		opts.RescuedDataColumn = "_rescued_data"
	}
	opts.Mode = []fileformat.ParseMode{"", "DROPMALFORMED", "FAILFAST", "permissive"}[(bits>>5)&3]
	if on(7) {
		opts.CorruptRecordColumn = "_bad"
	}
	if on(8) {
		ddl := []string{
			"a STRUCT<b: INT>, nested.x STRING", "list ARRAY<STRUCT<x: LONG>>, b INT",
			"A DECIMAL(10,2), ts TIMESTAMP", "nested.a.b DATE, list.element.a STRING",
		}[(bits>>9)&3]
		hs, err := schema.ParseDDL(ddl)
		if err != nil {
			t.Fatal(err)
		}
		opts.Hints = hs
	}
	if on(11) {
		opts.Options["inferTimestamp"] = "true"
		if on(12) {
			opts.Options["timestampFormat"] = "dd/MM/yyyy HH:mm"
			opts.Options["dateFormat"] = "dd/MM/yyyy"
			opts.Options["timeZone"] = "Europe/Oslo"
		}
	}
	for i, name := range []string{"allowComments", "allowUnquotedFieldNames", "allowNumericLeadingZeros",
		"allowBackslashEscapingAnyCharacter", "allowUnquotedControlChars"} {
		if on(13 + i) {
			opts.Options[name] = "true"
		}
	}
	if on(18) {
		opts.Options["allowSingleQuotes"] = "false"
	}
	if on(19) {
		opts.Options["allowNonNumericNumbers"] = "false"
	}
	if on(20) && on(9) { // a quarter of the cases: a file is one record
		opts.Options["multiLine"] = "true"
	}
	if on(21) && on(10) {
		opts.Options["samplingRatio"] = "0.5"
	}
	if on(22) {
		opts.Text.LineSep = "\r\n"
	}
	if on(23) && on(24) {
		opts.Text.Encoding = []string{"ISO-8859-1", "UTF-16LE"}[(bits>>25)&1]
	}
	return opts
}

// dumpType writes an inferred type as it is held (fields in first-seen
// order), flagging a field table out of step with its fields.
func dumpType(b *strings.Builder, it *itype) {
	fmt.Fprintf(b, "%d", it.kind)
	if it.kind == iDecimal {
		fmt.Fprintf(b, "(%d,%d)", it.prec, it.scale)
	}
	if len(it.fields) > 0 || len(it.index) > 0 {
		if len(it.index) != len(it.fields) || len(it.exact) != len(it.fields) {
			fmt.Fprintf(b, "!tables %d/%d/%d", len(it.fields), len(it.index), len(it.exact))
		}
		b.WriteByte('{')
		for i, f := range it.fields {
			if it.index[strings.ToLower(f.name)] != i || it.exact[f.name] != i || f.plain != jsontape.RawName(f.name) {
				b.WriteString("!index ")
			}
			fmt.Fprintf(b, "%q:", f.name)
			dumpType(b, f.t)
			b.WriteByte(',')
		}
		b.WriteByte('}')
	}
	if it.elem != nil {
		b.WriteByte('[')
		dumpType(b, it.elem)
		b.WriteByte(']')
	}
}

// inferWith infers the files with the type scanner (off: the tape alone)
// in chunks of chunk bytes (< 0: serially) and describes the result: the
// schema, the types as held, what was sampled, the errors. It also
// returns how many records the scanner inferred.
func inferWith(opts fileformat.InferOptions, files [][]byte, off bool, chunk int) (string, int) {
	in := newInferrer(opts)
	in.sc.off, in.chunk = off, chunk
	var errs []string
	for i, p := range files {
		if err := in.Add(context.Background(), fmt.Sprintf("f%d.json", i), bytes.NewReader(p)); err != nil {
			errs = append(errs, err.Error())
			if errors.Is(err, fileformat.ErrMalformedRecord) {
				break
			}
		}
	}
	var b strings.Builder
	dumpType(&b, &in.root)
	return fmt.Sprintf("%s\n%s\n%+v %q", in.Schema(), b.String(), in.Sampled(), errs), in.sc.scanned
}

// splitFiles cuts data into two files at a line boundary.
func splitFiles(data []byte) [][]byte {
	if half := bytes.IndexByte(data[len(data)/2:], '\n'); half >= 0 {
		cut := len(data)/2 + half + 1
		return [][]byte{data[:cut], data[cut:]}
	}
	return [][]byte{data}
}

// TestScanMatchesTape: the type scanner infers exactly what the tape path
// infers (schema, types and field spellings as held, records sampled,
// malformed-record decisions and errors) on random documents with standard
// and non-standard syntax, broken lines, escapes, unicode and number
// edges, in every combination of the options the inference consults,
// serially and in parallel chunks.
func TestScanMatchesTape(t *testing.T) {
	if runtime.GOMAXPROCS(0) < 2 {
		defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(2))
	}
	scanned := 0
	for seed := range uint64(400) {
		r := rand.New(rand.NewPCG(seed, 29))
		bits := r.Uint32()
		if seed < 24 {
			bits = 1 << seed // each option alone
		}
		opts := scanOptions(t, bits)
		odd := []int{0, 1, 3, 30}[seed%4]
		data := scanDoc(r, 20+r.IntN(200), odd)
		files := splitFiles(data)
		for _, chunk := range []int{-1, 1, 512} {
			want, _ := inferWith(opts, files, true, chunk)
			got, n := inferWith(opts, files, false, chunk)
			if got != want {
				t.Fatalf("seed %d bits %#x odd %d chunk %d:\ntape %s\nscan %s\ndata:\n%s", seed, bits, odd, chunk, want, got, data)
			}
			scanned += n
		}
	}
	// The comparison means something only if the scanner did the work.
	if scanned < 10000 {
		t.Fatalf("the scanner inferred only %d records", scanned)
	}
	t.Logf("the scanner inferred %d records", scanned)
}

// FuzzScanMatchesTape: the type scanner infers what the tape path infers
// on arbitrary input and options.
func FuzzScanMatchesTape(f *testing.F) {
	f.Add([]byte("{\"a\":1}\n{\"A\":\"x\"}\n{\"b\":[1,2.5]}\n"), uint32(0))
	f.Add([]byte("[{\"a\":{\"b\":1}},{\"a\":5}]\n{'a': NaN}\n{\"a\":[]}\n"), uint32(1<<13|1<<15))
	f.Add([]byte("{\"ts\":\"2024-03-01T00:00:00Z\",\"x\\u0041\":1e400}\n[{\"a\":1},2]\n"), uint32(1<<11|1<<1))
	f.Add(scanDoc(rand.New(rand.NewPCG(1, 2)), 30, 5), uint32(1<<8))
	f.Fuzz(func(t *testing.T, data []byte, bits uint32) {
		opts := scanOptions(t, bits)
		files := splitFiles(data)
		for _, chunk := range []int{-1, 16} {
			want, _ := inferWith(opts, files, true, chunk)
			got, _ := inferWith(opts, files, false, chunk)
			if got != want {
				t.Fatalf("bits %#x chunk %d:\ntape %s\nscan %s", bits, chunk, want, got)
			}
		}
	})
}
