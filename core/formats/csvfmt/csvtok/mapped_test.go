package csvtok

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"reflect"
	"strings"
	"testing"

	"github.com/tributary-io/tributary/core/formats/fileformat"
	"github.com/tributary-io/tributary/core/formats/fileformat/maptest"
)

// bytesMapper is a fileformat.Mapper over data. Each MapAt returns a
// fresh copy of the window, and the window before is overwritten with
// 0xFF when it is unmapped, so that a value used after the window moved
// on shows.
type bytesMapper struct {
	r       *bytes.Reader
	data    []byte
	win     []byte
	maps    int
	readOne bool // MapAt fails, as on a file read from already
	sized   bool // Size tells the length (fileformat.Sized)
}

// Size is the length when m is sized, else -1 (fileformat.Sized).
func (m *bytesMapper) Size() int64 {
	if m.sized {
		return int64(len(m.data))
	}
	return -1
}

func newBytesMapper(data []byte) *bytesMapper {
	return &bytesMapper{r: bytes.NewReader(data), data: data}
}

func (m *bytesMapper) Read(p []byte) (int, error) { return m.r.Read(p) }
func (m *bytesMapper) Seek(off int64, whence int) (int64, error) {
	return m.r.Seek(off, whence)
}

func (m *bytesMapper) MapAt(off int64, n int) ([]byte, error) {
	if m.readOne {
		return nil, errors.New("read from already")
	}
	m.Unmap()
	m.maps++
	if off >= int64(len(m.data)) {
		return nil, nil
	}
	m.win = bytes.Clone(m.data[off:min(int64(len(m.data)), off+int64(n))])
	return m.win, nil
}

func (m *bytesMapper) Unmap() {
	for i := range m.win {
		m.win[i] = 0xFF
	}
	m.win = nil
}

var _ fileformat.Mapper = (*bytesMapper)(nil)

// record is what a test keeps of one record (or the error ending the
// read, or the rest of the input after Rest).
type record struct {
	Vals         []string
	Quoted, Skip []bool
	Raw, Bad     string
	Line, Cur    int64
	Err          string
	Rest         string
}

// readAll tokenizes r with c, taking the rest of the input with Rest after
// rest records (-1: never), and records everything.
func readAll(t testing.TB, r io.Reader, c *Config, rest int) []record {
	t.Helper()
	return readOn(t, New(r, c), rest)
}

// readOn is readAll of tk's source.
func readOn(t testing.TB, tk *Tokenizer, rest int) []record {
	t.Helper()
	var out []record
	for n := 0; n < 100000; n++ {
		if n == rest {
			if br, ok := tk.Rest(); ok {
				b, err := io.ReadAll(br)
				st := record{Rest: string(b)}
				if err != nil {
					st.Err = err.Error()
				}
				return append(out, st)
			}
		}
		err := tk.Next()
		if errors.Is(err, io.EOF) {
			return append(out, record{Err: "EOF", Cur: tk.Cur()})
		}
		st := record{Raw: string(tk.Raw()), Bad: tk.Bad(), Line: tk.Line(), Cur: tk.Cur()}
		if err != nil {
			// A parser limit fails the read; how much of the record was
			// read then depends on the read buffer.
			st.Err, st.Raw = err.Error(), ""
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
	t.Fatal("too many records")
	return nil
}

// mappedConfigs are the option sets of the read-in-place tests.
var mappedConfigs = []Config{
	{Sep: ",", Quote: '"', Escape: '\\', MaxColumns: 20480, UnescapedQuoteHandling: StopAtDelimiter},
	{Sep: ",", Quote: '"', Escape: '"', MaxColumns: 20480, UnescapedQuoteHandling: StopAtDelimiter},
	{Sep: ";", Quote: '\'', Escape: '\\', MaxColumns: 20480, UnescapedQuoteHandling: BackToDelimiter, Comment: '#'},
	{Sep: ",", Quote: '"', Escape: '\\', MaxColumns: 20480, UnescapedQuoteHandling: StopAtClosingQuote, MultiLine: true},
	{Sep: "::", Quote: '"', Escape: '\\', MaxColumns: 20480, UnescapedQuoteHandling: StopAtDelimiter},
	{Sep: "é", Quote: '"', Escape: '\\', MaxColumns: 20480, UnescapedQuoteHandling: SkipValue, LineSep: "\r"},
	{Sep: ",", Quote: '"', Escape: '#', CharToEscapeQuoteEscape: '\\', MaxColumns: 3, UnescapedQuoteHandling: RaiseError},
	{Sep: ",", Quote: '"', Escape: '\\', MaxColumns: 20480, MaxCharsPerColumn: 5, UnescapedQuoteHandling: StopAtDelimiter, SkipRows: 1},
	{Sep: "\t", Quote: '"', Escape: '\\', MaxColumns: 20480, UnescapedQuoteHandling: StopAtDelimiter, IgnoreLeadingWhiteSpace: true, IgnoreTrailingWhiteSpace: true},
	{Sep: ",", Quote: '"', Escape: '\\', MaxColumns: 20480, UnescapedQuoteHandling: StopAtDelimiter, Slow: true},
}

// checkMapped compares reading doc in place in windows of win bytes (and
// with a first MapAt that fails) with reading it through read(2).
func checkMapped(t testing.TB, doc []byte, c *Config, win, rest int) {
	t.Helper()
	want := readAll(t, bytes.NewReader(doc), c, rest)
	defer func(w int) { mapWindow = w }(mapWindow)
	mapWindow = win
	for _, sized := range []bool{false, true} {
		m := newBytesMapper(doc)
		m.sized = sized
		if got := readAll(t, m, c, rest); !reflect.DeepEqual(got, want) {
			t.Fatalf("doc %q config %+v window %d rest %d sized %v:\nmapped %s\nread   %s", short(doc), *c, win, rest, sized, dump(got), dump(want))
		}
		if len(doc) > 0 && m.maps == 0 {
			t.Fatalf("doc %q: not read in place", short(doc))
		}
	}
	m := newBytesMapper(doc)
	m.readOne = true
	if got := readAll(t, m, c, rest); !reflect.DeepEqual(got, want) {
		t.Fatalf("doc %q config %+v, MapAt failing:\ngot  %s\nread %s", short(doc), *c, dump(got), dump(want))
	}
}

// short is doc cut for a message.
func short(doc []byte) []byte { return doc[:min(len(doc), 300)] }

// dump is records for a message, cut.
func dump(r []record) string {
	s := fmt.Sprintf("%+v", r)
	return s[:min(len(s), 2000)]
}

// TestMappedRandom: on random documents, under every option set, reading
// in place in tiny windows (lines crossing them, the window doubling for
// long lines, runes and multi-byte delimiters cut by them) gives the
// records, line numbers, errors and Rest of reading with read(2).
func TestMappedRandom(t *testing.T) {
	pieces := []string{"a", "bc", "12", ",", ",", ";", "::", "\"", "\"", "'", "\\", "#", " ", "\t", "\r", "\n", "\n", "\r\n", "é", "日本", "\xff", "\x00", "\uFEFF"}
	rng := rand.New(rand.NewPCG(8, 13))
	n := 4000
	if testing.Short() {
		n = 400
	}
	for range n {
		var b strings.Builder
		for k := rng.IntN(80); k > 0; k-- {
			b.WriteString(pieces[rng.IntN(len(pieces))])
		}
		c := mappedConfigs[rng.IntN(len(mappedConfigs))]
		rest := -1
		if rng.IntN(3) == 0 {
			rest = rng.IntN(6)
		}
		checkMapped(t, []byte(b.String()), &c, 1+rng.IntN(24), rest)
	}
}

// TestMappedLongLines: lines far longer than the window, and a file of
// many short lines, read in place.
func TestMappedLongLines(t *testing.T) {
	var b strings.Builder
	for i := range 300 {
		b.WriteString(strings.Repeat("x", i*7%97))
		b.WriteString(",\"q")
		b.WriteString(strings.Repeat("日", i%13))
		b.WriteString("\",9\n")
	}
	doc := []byte(b.String())
	for _, win := range []int{1, 2, 3, 5, 16, 64, 4096} {
		for i := range mappedConfigs {
			checkMapped(t, doc, &mappedConfigs[i], win, -1)
			checkMapped(t, doc, &mappedConfigs[i], win, 7)
		}
	}
}

// FuzzMapped: reading in place gives what reading with read(2) gives.
func FuzzMapped(f *testing.F) {
	f.Add([]byte("a,b\n1,\"2\"\r\n\"x\ny\",z"), uint8(3), uint8(0), int8(-1))
	f.Add([]byte("\uFEFFh::i\n日本::\"a\"\"b\"\n#c\n"), uint8(1), uint8(4), int8(2))
	f.Add([]byte("a\rb\r\"c\rd\"\r"), uint8(2), uint8(5), int8(1))
	f.Fuzz(func(t *testing.T, doc []byte, win, cfg uint8, rest int8) {
		c := mappedConfigs[int(cfg)%len(mappedConfigs)]
		checkMapped(t, doc, &c, 1+int(win)%64, int(rest))
	})
}

// A source of known length whose rest after a window is short is read in
// one window more, not two (fileformat.Window): the records are those of
// reading with read(2).
func TestMappedTailInOneWindow(t *testing.T) {
	defer func(w int) { mapWindow = w }(mapWindow)
	mapWindow = 64
	c := &mappedConfigs[0]
	for _, tc := range maptest.TailCases(mapWindow) {
		var b bytes.Buffer
		for i := 0; b.Len() < tc.Size; i++ {
			fmt.Fprintf(&b, "%d,x\n", i%10)
		}
		doc := b.Bytes()[:tc.Size]
		want := readAll(t, bytes.NewReader(doc), c, -1)
		m := newBytesMapper(doc)
		m.sized = tc.Sized
		if got := readAll(t, m, c, -1); !reflect.DeepEqual(got, want) {
			t.Fatalf("%+v:\nmapped %s\nread   %s", tc, dump(got), dump(want))
		}
		if m.maps != tc.Maps {
			t.Errorf("%+v: %d windows mapped, want %d", tc, m.maps, tc.Maps)
		}
	}
}
