package fileformat

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"io"
	"os"
	"strings"
	"testing"
	"testing/iotest"

	"github.com/klauspost/compress/snappy"
	"github.com/pierrec/lz4/v4"
)

// sparkLines is what testdata/hadoop/make_golden.py wrote with Spark's
// SnappyCodec and Lz4Codec.
func sparkLines() string {
	var b strings.Builder
	for i := range 20000 {
		fmt.Fprintf(&b, "line %d %s\n", i, strings.Repeat("x", i%50))
	}
	return b.String()
}

func TestHadoopCodecsGolden(t *testing.T) {
	want := sparkLines()
	for _, name := range []string{"spark.snappy", "spark.lz4"} {
		f, err := os.Open("testdata/hadoop/" + name)
		if err != nil {
			t.Fatal(err)
		}
		rc, err := Decompress(name, f)
		if err != nil {
			t.Fatal(err)
		}
		got, err := io.ReadAll(iotest.HalfReader(rc))
		rc.Close()
		f.Close()
		if err != nil || string(got) != want {
			t.Errorf("%s: %d bytes, %v; want Spark's %d bytes", name, len(got), err, len(want))
		}
	}
}

// hadoopFrame writes data in Hadoop's block framing, blocks of blockSize
// split into chunks of chunkSize, compressed by enc.
func hadoopFrame(data []byte, blockSize, chunkSize int, enc func([]byte) []byte) []byte {
	var out bytes.Buffer
	for len(data) > 0 {
		block := data[:min(blockSize, len(data))]
		data = data[len(block):]
		binary.Write(&out, binary.BigEndian, uint32(len(block)))
		for len(block) > 0 {
			c := block[:min(chunkSize, len(block))]
			block = block[len(c):]
			z := enc(c)
			binary.Write(&out, binary.BigEndian, uint32(len(z)))
			out.Write(z)
		}
	}
	return out.Bytes()
}

func lz4Block(b []byte) []byte {
	dst := make([]byte, lz4.CompressBlockBound(len(b)))
	n, err := lz4.CompressBlock(b, dst, nil)
	if err != nil || n == 0 {
		panic(fmt.Sprint("lz4 incompressible in test: ", err))
	}
	return dst[:n]
}

func TestHadoopCodecs(t *testing.T) {
	data := []byte(strings.Repeat("hello hadoop framing\n", 5000))
	var snappyStream, lz4Frame bytes.Buffer
	sw := snappy.NewBufferedWriter(&snappyStream)
	sw.Write(data)
	sw.Close()
	lw := lz4.NewWriter(&lz4Frame)
	lw.Write(data)
	lw.Close()
	for _, tc := range []struct {
		name string
		raw  []byte
	}{
		{"a.snappy", hadoopFrame(data, 64<<10, 16<<10, func(b []byte) []byte { return snappy.Encode(nil, b) })},
		{"a.lz4", hadoopFrame(data, 64<<10, 16<<10, lz4Block)},
		{"stream.snappy", snappyStream.Bytes()},
		{"frame.lz4", lz4Frame.Bytes()},
		{"empty.snappy", nil},
	} {
		rc, err := Decompress(tc.name, bytes.NewReader(tc.raw))
		if err != nil {
			t.Fatal(err)
		}
		got, err := io.ReadAll(rc)
		want := data
		if tc.raw == nil {
			want = nil
		}
		if err != nil || !bytes.Equal(got, want) {
			t.Errorf("%s: %d bytes, %v", tc.name, len(got), err)
		}
	}
	for _, bad := range [][]byte{{0, 0, 0, 10}, {0, 0, 0, 10, 0, 0, 0, 5, 1, 2}, {0xff, 0xff, 0xff, 0xff}, {0, 0, 0, 4, 0, 0, 0, 3, 0xff, 0xff, 0xff}} {
		for _, name := range []string{"x.snappy", "x.lz4"} {
			rc, _ := Decompress(name, bytes.NewReader(bad))
			if _, err := io.ReadAll(rc); err == nil || !strings.Contains(err.Error(), name) {
				t.Errorf("%s %x: %v, want an error naming the file", name, bad, err)
			}
		}
	}
}

// FuzzHadoopFraming: corrupt framing never panics.
func FuzzHadoopFraming(f *testing.F) {
	f.Add(hadoopFrame([]byte("abcabcabc"), 4, 2, func(b []byte) []byte { return snappy.Encode(nil, b) }), true)
	f.Add(hadoopFrame([]byte(strings.Repeat("abcd", 40)), 64, 32, lz4Block), false)
	f.Fuzz(func(t *testing.T, data []byte, isSnappy bool) {
		name := "f.lz4"
		if isSnappy {
			name = "f.snappy"
		}
		rc, err := Decompress(name, bytes.NewReader(data))
		if err != nil {
			t.Fatal(err)
		}
		io.Copy(io.Discard, io.LimitReader(rc, 256<<20))
	})
}
