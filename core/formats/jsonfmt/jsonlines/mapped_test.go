package jsonlines

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/tributary-io/tributary/core/formats/fileformat"
	"github.com/tributary-io/tributary/core/formats/fileformat/maptest"
)

// bytesMapper is a fileformat.Mapper over data. Each MapAt returns a
// fresh copy of the window, and the window before is overwritten with
// 0xFF when it is unmapped, so that a line used after the next call shows.
type bytesMapper struct {
	r       *bytes.Reader
	data    []byte
	win     []byte
	maps    int
	readOne bool // MapAt fails, as on a file read from already
	sized   bool // Size tells the length (fileformat.Sized)
	// live is the shared windows mapped and not unmapped yet.
	live atomic.Int32
}

// Size is the length when m is sized, else -1 (fileformat.Sized).
func (m *bytesMapper) Size() int64 {
	if m.sized {
		return int64(len(m.data))
	}
	return -1
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

// MapShared returns a fresh copy of the window, which its unmap
// overwrites with 0xFF; a second unmap of a window makes live negative.
func (m *bytesMapper) MapShared(off int64, n int) ([]byte, func(), error) {
	if m.readOne {
		return nil, nil, errors.New("read from already")
	}
	m.maps++
	if off >= int64(len(m.data)) {
		return nil, func() {}, nil
	}
	win := bytes.Clone(m.data[off:min(int64(len(m.data)), off+int64(n))])
	m.live.Add(1)
	var done atomic.Bool
	return win, func() {
		if done.Swap(true) {
			m.live.Add(-1000)
			return
		}
		for i := range win {
			win[i] = 0xFF
		}
		m.live.Add(-1)
	}, nil
}

func (m *bytesMapper) Unmap() {
	for i := range m.win {
		m.win[i] = 0xFF
	}
	m.win = nil
}

var _ fileformat.SharedMapper = (*bytesMapper)(nil)

// opsRead reads r with the reader options, calling Next or (when blocks is
// set and the options allow it) Block as rng chooses, and records every
// line (with its number) and the end: the same rng seed gives the same
// calls, whatever the source. It may call CountLater before a block: the
// lines are then numbered by their count here, and the reader's numbers
// must be -1 once a block was returned uncounted.
func opsRead(t *testing.T, r io.Reader, opts fileformat.TextOptions, whole bool, seed uint64, blocks bool) []numbered {
	t.Helper()
	lr, err := New(r, opts)
	if err != nil {
		t.Fatal(err)
	}
	lr.Whole = whole
	defer lr.Release()
	rng := rand.New(rand.NewPCG(seed, 3))
	var out []numbered
	// held are the blocks of BlockShared not released yet, with a copy
	// of their bytes: each must stay unchanged until it is released.
	type heldBlock struct {
		b, copy []byte
		release func()
	}
	var held []heldBlock
	// lines is the lines returned so far; unknown: a block was returned
	// after CountLater.
	var lines int64
	var later, unknown bool
	want := func() int64 {
		if unknown {
			return -1
		}
		return lines
	}
	releaseOne := func() {
		h := held[0]
		held = held[1:]
		if !bytes.Equal(h.b, h.copy) {
			t.Fatalf("a shared block changed before its release: %q, was %q", h.b, h.copy)
		}
		h.release()
	}
	defer func() {
		for len(held) > 0 {
			releaseOne()
		}
	}()
	for range 100000 {
		if rng.IntN(3) == 0 && len(held) > 0 {
			releaseOne()
		}
		if blocks && lr.Blocks() && rng.IntN(8) == 0 {
			if !later && rng.IntN(6) == 0 {
				lr.CountLater()
				later = true
			}
			first := lr.Line()
			if first != want() {
				t.Fatalf("Line %d before a block, want %d", first, want())
			}
			size := 1 + rng.IntN(300)
			var b []byte
			var from int64
			var err error
			if rng.IntN(2) == 0 {
				b, from, err = lr.Block(nil, size)
			} else {
				var release func()
				b, from, release, err = lr.BlockShared(nil, size)
				if release != nil {
					held = append(held, heldBlock{b, bytes.Clone(b), release})
				}
			}
			if errors.Is(err, io.EOF) {
				return append(out, numbered{-2, "EOF"})
			}
			if err != nil {
				return append(out, numbered{-1, err.Error()})
			}
			if from != first {
				t.Fatalf("Block from line %d, Line %d", from, first)
			}
			for len(b) > 0 {
				var line []byte
				line, b = Cut(b)
				lines++
				out = append(out, numbered{lines, string(line)})
			}
			unknown = unknown || later
			if lr.Line() != want() {
				t.Fatalf("Line %d after a block, want %d", lr.Line(), want())
			}
			continue
		}
		line, err := lr.Next()
		if errors.Is(err, io.EOF) {
			return append(out, numbered{-2, "EOF"})
		}
		if err != nil {
			return append(out, numbered{-1, err.Error()})
		}
		lines++
		if lr.Line() != want() {
			t.Fatalf("Line %d, want %d", lr.Line(), want())
		}
		out = append(out, numbered{lines, string(line)})
	}
	t.Fatal("no end after 100000 calls")
	return nil
}

// randomLines is a document of random lines: records, empty and blank
// lines, every line end ("\n", "\r\n", "\r", the separator), a byte order
// mark, long lines, and sometimes no end after the last line.
func randomLines(rng *rand.Rand, sep string) []byte {
	var b bytes.Buffer
	if rng.IntN(5) == 0 {
		b.WriteString("\xef\xbb\xbf")
	}
	ends := []string{"\n", "\r\n", "\r", "\n\r"}
	if sep != "" {
		ends = append(ends, sep, sep, sep)
	}
	for range rng.IntN(60) {
		switch k := rng.IntN(20); {
		case k == 0:
			b.WriteString(strings.Repeat("x", rng.IntN(3000)))
		case k == 1:
			b.WriteString("  \t")
		case k < 4:
		default:
			fmt.Fprintf(&b, `{"a":%d,"s":"%s"}`, rng.IntN(1000), strings.Repeat("é", rng.IntN(30)))
		}
		if rng.IntN(15) != 0 {
			b.WriteString(ends[rng.IntN(len(ends))])
		}
	}
	return b.Bytes()
}

// TestMappedMatchesRead reads random documents in place (a Mapper, in
// windows of a few bytes to a few KiB) and with Read, with Next and
// Block as a random sequence chooses, the default line ends and a lineSep,
// multiLine too: the same lines, numbers and end. A failing first MapAt
// falls back to Read.
func TestMappedMatchesRead(t *testing.T) {
	defer func(w int) { mapWindow = w }(mapWindow)
	for seed := range uint64(3000) {
		rng := rand.New(rand.NewPCG(seed, 9))
		mapWindow = []int{1, 2, 7, 64, 1000, 5000}[rng.IntN(6)]
		sep := ""
		if rng.IntN(4) == 0 {
			sep = []string{"|", "\r\n", "||", "ab"}[rng.IntN(4)]
		}
		data := randomLines(rng, sep)
		opts := fileformat.TextOptions{LineSep: sep}
		whole := rng.IntN(10) == 0
		blocks := rng.IntN(2) == 0
		want := opsRead(t, bytes.NewReader(data), opts, whole, seed, blocks)
		m := &bytesMapper{r: bytes.NewReader(data), data: data, readOne: rng.IntN(10) == 0, sized: rng.IntN(2) == 0}
		got := opsRead(t, m, opts, whole, seed, blocks)
		if fmt.Sprint(got) != fmt.Sprint(want) {
			t.Fatalf("seed %d (window %d, sep %q, whole %v, blocks %v, sized %v, %d bytes):\nin place %v\nread     %v", seed, mapWindow, sep, whole, blocks, m.sized, len(data), got, want)
		}
		if !whole && !blocks && !m.readOne && len(data) > 0 && m.maps == 0 {
			t.Fatalf("seed %d: never mapped", seed)
		}
		if m.win != nil || m.live.Load() != 0 {
			t.Fatalf("seed %d: a window is left mapped after Release (%d shared)", seed, m.live.Load())
		}
	}
}

// FuzzMapped compares reading in place with reading with Read (see
// TestMappedMatchesRead) on any input.
func FuzzMapped(f *testing.F) {
	f.Add([]byte("{\"a\":1}\n{\"a\":2}\r\n\r{}"), uint8(3), uint64(1))
	f.Add([]byte("\xef\xbb\xbfx|y||z"), uint8(1), uint64(2))
	f.Add([]byte("\xef\xbb\xbf"), uint8(2), uint64(4))
	f.Add([]byte("a\r\nb\rc\r"), uint8(2), uint64(5))
	f.Fuzz(func(t *testing.T, data []byte, win uint8, seed uint64) {
		defer func(w int) { mapWindow = w }(mapWindow)
		mapWindow = 1 + int(win)
		for _, sep := range []string{"", "|"} {
			opts := fileformat.TextOptions{LineSep: sep}
			want := opsRead(t, bytes.NewReader(data), opts, false, seed, true)
			m := &bytesMapper{r: bytes.NewReader(data), data: data, sized: seed%2 == 0}
			got := opsRead(t, m, opts, false, seed, true)
			if m.live.Load() != 0 {
				t.Fatalf("window %d, sep %q: %d shared windows left mapped", mapWindow, sep, m.live.Load())
			}
			if fmt.Sprint(got) != fmt.Sprint(want) {
				t.Fatalf("window %d, sep %q:\nin place %v\nread     %v", mapWindow, sep, got, want)
			}
		}
	})
}

// A source of known length whose rest after a window is short is read in
// one window more, not two: a file of a window and a few lines is mapped
// once, a file of a window and a half twice; the lines are those of Read.
func TestMappedTailInOneWindow(t *testing.T) {
	defer func(w int) { mapWindow = w }(mapWindow)
	mapWindow = 64
	for _, tc := range maptest.TailCases(mapWindow) {
		var b bytes.Buffer
		for i := 0; b.Len() < tc.Size; i++ {
			fmt.Fprintf(&b, "{\"i\":%d}\n", i%10)
		}
		data := b.Bytes()[:tc.Size]
		want := opsRead(t, bytes.NewReader(data), fileformat.TextOptions{}, false, 1, false)
		m := &bytesMapper{r: bytes.NewReader(data), data: data, sized: tc.Sized}
		got := opsRead(t, m, fileformat.TextOptions{}, false, 1, false)
		if fmt.Sprint(got) != fmt.Sprint(want) {
			t.Fatalf("%+v:\nin place %v\nread     %v", tc, got, want)
		}
		if m.maps != tc.Maps {
			t.Errorf("%+v: %d windows mapped, want %d", tc, m.maps, tc.Maps)
		}
	}
}
