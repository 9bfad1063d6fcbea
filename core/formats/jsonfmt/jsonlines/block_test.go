package jsonlines

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"strings"
	"testing"
	"testing/iotest"

	"github.com/tributary-io/tributary/core/formats/fileformat"
)

// numbered is a line with its number, or a read error.
type numbered struct {
	no   int64
	line string
}

// errAfter returns data, then err.
func errAfter(data []byte, err error, oneByte bool) io.Reader {
	var r io.Reader = bytes.NewReader(data)
	if oneByte {
		r = iotest.OneByteReader(r)
	}
	if err != nil {
		r = io.MultiReader(r, iotest.ErrReader(err))
	}
	return r
}

// nextLines reads every line with Next.
func nextLines(t *testing.T, r io.Reader) []numbered {
	t.Helper()
	lr, err := New(r, fileformat.TextOptions{})
	if err != nil {
		t.Fatal(err)
	}
	var out []numbered
	for {
		line, err := lr.Next()
		if errors.Is(err, io.EOF) {
			return out
		}
		if err != nil {
			return append(out, numbered{-1, err.Error()})
		}
		out = append(out, numbered{lr.Line(), string(line)})
	}
}

// blockLines reads every line with Block (blocks of at least size bytes),
// after the first nexts lines read with Next, and checks Line against the
// lines cut.
func blockLines(t *testing.T, r io.Reader, size, nexts int) []numbered {
	t.Helper()
	lr, err := New(r, fileformat.TextOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if !lr.Blocks() {
		t.Fatal("Blocks: false for the default options")
	}
	var out []numbered
	for range nexts {
		line, err := lr.Next()
		if errors.Is(err, io.EOF) {
			return out
		}
		if err != nil {
			return append(out, numbered{-1, err.Error()})
		}
		out = append(out, numbered{lr.Line(), string(line)})
	}
	for {
		prefix := []byte("prefix") // Block appends
		b, no, err := lr.Block(prefix, size)
		if !bytes.Equal(b[:len(prefix)], prefix) {
			t.Fatalf("Block changed the bytes before the block: %q", b)
		}
		if errors.Is(err, io.EOF) {
			if len(b) != len(prefix) {
				t.Fatalf("io.EOF with a block %q", b)
			}
			return out
		}
		if err != nil {
			return append(out, numbered{-1, err.Error()})
		}
		cut := Cutter(b[len(prefix):])
		for rest := b[len(prefix):]; len(rest) > 0; {
			var line []byte
			line, rest = cut(rest)
			no++
			out = append(out, numbered{no, string(line)})
		}
		if no != lr.Line() {
			t.Fatalf("block ends at line %d, Line() is %d", no, lr.Line())
		}
	}
}

func checkBlocks(t *testing.T, data string) {
	t.Helper()
	for _, fail := range []error{nil, errors.New("boom")} {
		for _, oneByte := range []bool{false, true} {
			want := nextLines(t, errAfter([]byte(data), fail, oneByte))
			for _, size := range []int{1, 3, 16, 1 << 10, 100 << 10} {
				for _, nexts := range []int{0, 1, 2} {
					got := blockLines(t, errAfter([]byte(data), fail, oneByte), size, nexts)
					if fmt.Sprint(got) != fmt.Sprint(want) {
						t.Fatalf("error %v, one byte %v, size %d, %d lines by Next first:\nBlock %v\nNext  %v", fail, oneByte, size, nexts, got, want)
					}
				}
			}
		}
	}
}

// TestBlockMatchesNext: the lines (and line numbers) cut from Block's
// blocks are Next's, whatever the block size and the read sizes, after
// lines read with Next, with a read error after the input.
func TestBlockMatchesNext(t *testing.T) {
	long := strings.Repeat("x", 150<<10)
	for _, data := range []string{
		"", "a", "a\n", "\n", "\n\n", "a\nb\r\nc\rd", "a\r", "a\r\n", "\r\n\r\n", "\r\r\n\n",
		"\uFEFF{}\n{}", "\uFEFF", "\uFEFF\n", "\xEF\xBB", "{}\n\uFEFF{}\n",
		"a\n" + long + "\nb\n", long, long + "\r" + long + "\r\n", "x\n" + long,
		strings.Repeat("{\"a\":1}\n", 5000), strings.Repeat("{\"a\":1}\r\n", 3000) + "tail",
	} {
		checkBlocks(t, data)
	}
}

func FuzzBlock(f *testing.F) {
	for _, s := range []string{"a\nb\r\nc\rd", "\uFEFF{}\n", "a\r", "\r\n\r\n", "\n\r\n\r"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, data string) {
		checkBlocks(t, data)
	})
}

// TestCountLines: CountLines counts the lines Cut finds.
func TestCountLines(t *testing.T) {
	for _, s := range []string{"", "a", "\n", "a\nb", "a\r\nb\r", "\r\r\n\n", "\n\n\n", strings.Repeat("ab\n", 100)} {
		var n int64
		for b := []byte(s); len(b) > 0; n++ {
			_, b = Cut(b)
		}
		if got := CountLines([]byte(s)); got != n {
			t.Errorf("CountLines(%q) = %d, Cut finds %d", s, got, n)
		}
	}
}

// TestBlocks: only the default line ends are read in blocks.
func TestBlocks(t *testing.T) {
	lr, err := New(strings.NewReader("a|b"), fileformat.TextOptions{LineSep: "|"})
	if err != nil {
		t.Fatal(err)
	}
	if lr.Blocks() {
		t.Error("Blocks: true with lineSep")
	}
	lr, err = New(strings.NewReader("a"), fileformat.TextOptions{})
	if err != nil {
		t.Fatal(err)
	}
	lr.Whole = true
	if lr.Blocks() {
		t.Error("Blocks: true for a whole-file record")
	}
}

// TestLines numbers blocks read uncounted in order: Start takes the line
// the reader is at and stops its counting, Next returns each block's line
// before it, Guess counts until a block is taken and estimates after.
func TestLines(t *testing.T) {
	for _, tc := range []struct {
		name   string
		doc    string
		blocks []int64 // line counts of the blocks taken (size 10 each)
		want   []int64 // the line before each
	}{
		{"start of the stream", "", []int64{3, 2, 5}, []int64{0, 3, 5}},
		{"after two lines", "a\nb\n", []int64{1, 1}, []int64{2, 3}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			lr, err := New(strings.NewReader(tc.doc+"x\ny\n"), fileformat.TextOptions{})
			if err != nil {
				t.Fatal(err)
			}
			for range strings.Count(tc.doc, "\n") {
				if _, err := lr.Next(); err != nil {
					t.Fatal(err)
				}
			}
			var n Lines
			n.Start(lr)
			n.Start(lr) // once
			if g := n.Guess([]byte("a\nb\nc")); g != 3 {
				t.Fatalf("Guess before any block: %d, want 3 (counted)", g)
			}
			for i, k := range tc.blocks {
				if got := n.Next(10, k); got != tc.want[i] {
					t.Fatalf("block %d follows line %d, want %d", i, got, tc.want[i])
				}
			}
			if _, _, err := lr.Block(nil, 1); err != nil {
				t.Fatal(err)
			}
			if lr.Line() != -1 {
				t.Fatalf("Line after an uncounted block: %d, want -1", lr.Line())
			}
			if g := n.Guess(make([]byte, 100)); g < 10 {
				t.Fatalf("Guess of 100 bytes: %d, want 10 or more", g)
			}
		})
	}
}
