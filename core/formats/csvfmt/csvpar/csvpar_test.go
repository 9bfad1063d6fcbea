package csvpar

import (
	"bytes"
	"errors"
	"io"
	"strings"
	"sync/atomic"
	"testing"
	"testing/iotest"
)

// checkCut cuts doc in blocks of about size bytes (read in small reads)
// and checks the blocks: whole lines, the text again once joined (with
// the rest after a stop).
func checkCut(t *testing.T, doc []byte, size int) {
	t.Helper()
	c := NewCutter(iotest.HalfReader(bytes.NewReader(doc)), size)
	var got []byte
	for range len(doc) + 2 {
		block, last, stop, err := c.Next(nil)
		if err != nil {
			t.Fatal(err)
		}
		if stop {
			rest, err := io.ReadAll(c.Rest(block, nil))
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.Contains(block, []byte{'\n'}) && len(block) < 8*size {
				t.Fatalf("stop after %d bytes, size %d", len(block), size)
			}
			got = append(got, rest...)
			break
		}
		if !last && (len(block) == 0 || block[len(block)-1] != '\n') {
			t.Fatalf("block %q does not end a line", block)
		}
		got = append(got, block...)
		if last {
			break
		}
	}
	if !bytes.Equal(got, doc) {
		t.Fatalf("size %d: joined %q, want %q", size, got, doc)
	}
}

// TestCutter: documents of short and long lines, lone "\r" line ends and
// none at all, cut in blocks of every small size.
func TestCutter(t *testing.T) {
	docs := []string{
		"", "a", "a\n", "a\nb", "ab\ncd\r\nef\n", "\r\r\r\nx\r",
		strings.Repeat("abc,def\n", 50), strings.Repeat("x", 300) + "\n" + strings.Repeat("y\r", 100),
	}
	for _, d := range docs {
		for size := 1; size < 20; size++ {
			checkCut(t, []byte(d), size)
		}
	}
}

// TestCutterReadError: a read error stops the cutting, and Rest gives the
// block read, then the error.
func TestCutterReadError(t *testing.T) {
	boom := errors.New("boom")
	c := NewCutter(io.MultiReader(strings.NewReader("a\nb\nc"), iotest.ErrReader(boom)), 2)
	var text []byte
	for {
		block, _, stop, err := c.Next(nil)
		if stop {
			if !errors.Is(err, boom) {
				t.Fatalf("stop with %v, want boom", err)
			}
			rest, rerr := io.ReadAll(c.Rest(block, err))
			text = append(text, rest...)
			if !errors.Is(rerr, boom) {
				t.Fatalf("Rest ended with %v, want boom", rerr)
			}
			break
		}
		text = append(text, block...)
	}
	if string(text) != "a\nb\nc" {
		t.Fatalf("read %q", text)
	}
}

// FuzzCutter: any document, any block size.
func FuzzCutter(f *testing.F) {
	f.Add([]byte("a,b\r\nc\rd\n\n"), uint8(3))
	f.Fuzz(func(t *testing.T, doc []byte, size uint8) {
		checkCut(t, doc, 1+int(size)%40)
	})
}

// TestOrdered: items come back in the order sent, each run once, each
// worker's function made once; Stop drops what was not taken.
func TestOrdered(t *testing.T) {
	var made atomic.Int32
	o := NewOrdered(3, func() func(*[2]int) {
		made.Add(1)
		return func(x *[2]int) { x[1] = x[0] * x[0] }
	})
	for i := range 50 {
		o.Send(&[2]int{i, -1})
		if o.Pending() > 5 {
			x := o.Take()
			if want := i - 5; x[0] != want || x[1] != want*want {
				t.Fatalf("took %v, want item %d", *x, want)
			}
		}
	}
	for o.Pending() > 1 {
		o.Take()
	}
	o.Stop()
	if o.Pending() != 0 || made.Load() > 3 || made.Load() < 1 {
		t.Fatalf("pending %d, made %d", o.Pending(), made.Load())
	}
}
