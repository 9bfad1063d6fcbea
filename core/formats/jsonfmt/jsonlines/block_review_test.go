package jsonlines

import (
	"errors"
	"io"
	"reflect"
	"strings"
	"testing"

	"github.com/tributary-io/tributary/core/formats/fileformat"
)

// TestReviewBlockBoundedOnCR: lines ended by a lone "\r" (old Mac files,
// which Spark reads as lines) are cut into blocks of about the size asked
// for, as "\n" lines are: not one block of the whole stream (the memory
// of a parallel read stays bounded by its chunks, not by the file). The
// lines and line numbers are Next's.
func TestReviewBlockBoundedOnCR(t *testing.T) {
	const size = 4 << 10
	for _, tc := range []struct {
		name string
		doc  string
	}{
		{"lone CR", strings.Repeat(`{"a":1,"s":"xyz"}`+"\r", 20000)},
		{"LF then lone CR", strings.Repeat(`{"a":1}`+"\n", 3000) + strings.Repeat(`{"b":2}`+"\r", 30000)},
		{"lone CR then CRLF", strings.Repeat(`{"c":3}`+"\r", 5000) + "\n" + strings.Repeat(`{"d":4}`+"\r\n", 3000)},
		{"CRLF", strings.Repeat(`{"e":5}`+"\r\n", 20000)},
		{"LF", strings.Repeat(`{"f":6}`+"\n", 20000)},
	} {
		t.Run(tc.name, func(t *testing.T) {
			for _, oneByte := range []bool{false, true} {
				lr, err := New(errAfter([]byte(tc.doc), nil, oneByte), fileformat.TextOptions{})
				if err != nil {
					t.Fatal(err)
				}
				largest := 0
				var got []numbered
				for {
					b, no, err := lr.Block(nil, size)
					if errors.Is(err, io.EOF) {
						break
					}
					if err != nil {
						t.Fatal(err)
					}
					largest = max(largest, len(b))
					for len(b) > 0 {
						var line []byte
						line, b = Cut(b)
						no++
						got = append(got, numbered{no, string(line)})
					}
				}
				if want := nextLines(t, strings.NewReader(tc.doc)); !reflect.DeepEqual(got, want) {
					t.Fatalf("one-byte reads %v: Block+Cut gave %d lines, Next %d (or they differ)", oneByte, len(got), len(want))
				}
				if limit := size + maxCarry + 8<<10; largest > limit {
					t.Errorf("one-byte reads %v: a block of %d bytes (of a %d-byte stream), want at most %d", oneByte, largest, len(tc.doc), limit)
				}
			}
		})
	}
}
