package dv

import (
	"bytes"
	"encoding/binary"
	"errors"
	"hash/crc32"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
)

// Container kinds for encodeRoaringArray.
const (
	encArray = iota
	encBitmap
	encRun
)

// encodeRoaringArray serialises sorted row indexes in Delta's
// RoaringBitmapArray format, every container of the given kind (the test
// encoder; Tributary itself never writes deletion vectors).
func encodeRoaringArray(rows []uint64, kind int) []byte {
	buckets := map[uint32][]uint32{}
	var keys []uint32
	for _, r := range rows {
		k := uint32(r >> 32)
		if _, ok := buckets[k]; !ok {
			keys = append(keys, k)
		}
		buckets[k] = append(buckets[k], uint32(r))
	}
	out := binary.LittleEndian.AppendUint32(nil, magic)
	out = binary.LittleEndian.AppendUint64(out, uint64(len(keys)))
	for _, k := range keys {
		out = binary.LittleEndian.AppendUint32(out, k)
		out = append(out, encodeRoaring32(buckets[k], kind)...)
	}
	return out
}

func encodeRoaring32(vals []uint32, kind int) []byte {
	conts := map[uint16][]uint16{}
	var keys []uint16
	for _, v := range vals {
		k := uint16(v >> 16)
		if _, ok := conts[k]; !ok {
			keys = append(keys, k)
		}
		conts[k] = append(conts[k], uint16(v))
	}
	var out []byte
	n := len(keys)
	if kind == encRun {
		out = binary.LittleEndian.AppendUint32(out, uint32(roaringCookie)|uint32(n-1)<<16)
		flags := make([]byte, (n+7)/8)
		for i := range flags {
			flags[i] = 0xFF
		}
		out = append(out, flags...)
	} else {
		out = binary.LittleEndian.AppendUint32(out, roaringCookieNoRun)
		out = binary.LittleEndian.AppendUint32(out, uint32(n))
	}
	for _, k := range keys {
		out = binary.LittleEndian.AppendUint16(out, k)
		out = binary.LittleEndian.AppendUint16(out, uint16(len(conts[k])-1))
	}
	var body []byte
	var offsets []uint32
	headerLen := len(out)
	if kind != encRun || n >= roaringNoOffsetMax {
		headerLen += 4 * n
	}
	for _, k := range keys {
		offsets = append(offsets, uint32(headerLen+len(body)))
		c := conts[k]
		k := kind
		if k == encBitmap && len(c) <= roaringArrayMax {
			k = encArray // the format decides: bitmaps hold more than 4096 values
		}
		if k == encArray && len(c) > roaringArrayMax {
			k = encBitmap
		}
		switch k {
		case encArray:
			for _, v := range c {
				body = binary.LittleEndian.AppendUint16(body, v)
			}
		case encBitmap:
			words := make([]uint64, 1024)
			for _, v := range c {
				words[v/64] |= 1 << (v % 64)
			}
			for _, w := range words {
				body = binary.LittleEndian.AppendUint64(body, w)
			}
		case encRun:
			var runs [][2]uint16
			for _, v := range c {
				if len(runs) > 0 && uint32(runs[len(runs)-1][0])+uint32(runs[len(runs)-1][1])+1 == uint32(v) {
					runs[len(runs)-1][1]++
					continue
				}
				runs = append(runs, [2]uint16{v, 0})
			}
			body = binary.LittleEndian.AppendUint16(body, uint16(len(runs)))
			for _, r := range runs {
				body = binary.LittleEndian.AppendUint16(body, r[0])
				body = binary.LittleEndian.AppendUint16(body, r[1])
			}
		}
	}
	if kind != encRun || n >= roaringNoOffsetMax {
		for _, o := range offsets {
			out = binary.LittleEndian.AppendUint32(out, o)
		}
	}
	return append(out, body...)
}

func TestZ85(t *testing.T) {
	// The relative-path DV of kernel/table-with-dv-small and the file it names.
	key, err := UUIDFileName("vBn[lx{q8@P<9BNH/isA")
	if err != nil || key != "deletion_vector_61d16c75-6994-46b7-a15b-8b538852e50e.bin" {
		t.Fatalf("UUIDFileName = %q, %v", key, err)
	}
	// PROTOCOL.md example 1: a random prefix before the UUID.
	if key, err = UUIDFileName("ab^-aqEH.-t@S}K{vb[*k^"); err != nil || key != "ab/deletion_vector_d2c639aa-8816-431a-aaf6-d3fe2512ff61.bin" {
		t.Fatalf("UUIDFileName with prefix = %q, %v", key, err)
	}
	if _, err := UUIDFileName("short"); !errors.Is(err, ErrInvalid) {
		t.Errorf("short relative path: %v", err)
	}
	for _, bad := range []string{"abcd", "abcd~", "#####"} {
		if _, err := Z85Decode(bad); !errors.Is(err, ErrInvalid) {
			t.Errorf("Z85Decode(%q) err = %v", bad, err)
		}
	}
	b := []byte{0x86, 0x4F, 0xD2, 0x6F, 0xB5, 0x59, 0xF7, 0x5B} // ZeroMQ spec: "HelloWorld"
	if s := Z85Encode(b); s != "HelloWorld" {
		t.Fatalf("Z85Encode = %q", s)
	}
	if back, err := Z85Decode("HelloWorld"); err != nil || !bytes.Equal(back, b) {
		t.Fatalf("Z85Decode = %x, %v", back, err)
	}
}

func TestDecodeRoaringArray(t *testing.T) {
	inline := func(s string, size int) []byte {
		b, err := Z85Decode(s)
		if err != nil {
			t.Fatal(err)
		}
		return b[:size]
	}
	// An inline DV as delta-spark writes it (portable format): rows 1, 3, 5.
	got, err := Decode(inline("^Bg9^0rr910000000000iXQKl0rr91000625c8Xg0rri41POJ5", 38), 3)
	if err != nil || !slices.Equal(got, RowSet{1, 3, 5}) {
		t.Fatalf("inline DV: %v, %v", got, err)
	}
	// PROTOCOL.md's inline example 3 holds the native layout written big
	// endian (magic 0x6439d3d0); delta-spark refuses it, and so do we.
	_, err = Decode(inline("wi5b=000010000siXQKl0rr91000f55c8Xg0@@D72lkbi5=-{L", 40), 6)
	if !errors.Is(err, ErrInvalid) || !strings.Contains(err.Error(), "magic number") {
		t.Fatalf("protocol example 3: %v", err)
	}
	rng := rand.New(rand.NewPCG(1, 2))
	for _, kind := range []int{encArray, encBitmap, encRun} {
		for trial := 0; trial < 20; trial++ {
			set := map[uint64]bool{}
			n := rng.IntN(12000)
			for range n {
				switch rng.IntN(3) {
				case 0:
					set[uint64(rng.IntN(9000))] = true
				case 1:
					set[uint64(rng.IntN(1<<18))] = true
				default:
					set[uint64(rng.IntN(3))<<32|uint64(rng.IntN(1<<17))] = true
				}
			}
			if trial == 0 { // a dense container: a bitmap, or long runs
				for r := uint64(70000); r < 80000; r++ {
					if r%7 != 0 {
						set[r] = true
					}
				}
			}
			var rows []uint64
			for r := range set {
				rows = append(rows, r)
			}
			slices.Sort(rows)
			enc := encodeRoaringArray(rows, kind)
			dec, err := Decode(enc, uint64(len(rows)))
			if err != nil || !slices.Equal(dec, RowSet(rows)) && len(rows) > 0 {
				t.Fatalf("kind %d, %d rows: decoded %d rows, %v", kind, len(rows), len(dec), err)
			}
			for _, r := range rows[:min(len(rows), 50)] {
				if !dec.Contains(r) || dec.Contains(r+1) && !set[r+1] {
					t.Fatalf("Contains(%d) wrong", r)
				}
			}
			if len(rows) > 0 {
				if _, err := Decode(enc, uint64(len(rows)-1)); !errors.Is(err, ErrInvalid) {
					t.Fatalf("more values than the limit accepted: %v", err)
				}
			}
		}
	}
	bad := [][]byte{
		nil,
		{1, 2, 3, 4},
		encodeRoaringArray([]uint64{1, 2}, encArray)[:20],
		append(encodeRoaringArray([]uint64{1, 2}, encArray), 0),
	}
	for i, b := range bad {
		if _, err := Decode(b, 100); !errors.Is(err, ErrInvalid) {
			t.Errorf("bad input %d accepted: %v", i, err)
		}
	}
}

func FuzzDecodeRoaringArray(f *testing.F) {
	f.Add(encodeRoaringArray([]uint64{3, 4, 7, 11, 18, 29}, encArray))
	f.Add(encodeRoaringArray([]uint64{1, 2, 3, 70000, 1 << 33}, encRun))
	f.Add(encodeRoaringArray([]uint64{5, 4096, 9000}, encBitmap))
	f.Fuzz(func(t *testing.T, b []byte) {
		rows, err := Decode(b, 1<<20)
		if err != nil {
			if !errors.Is(err, ErrInvalid) {
				t.Fatalf("error does not wrap ErrInvalid: %v", err)
			}
			return
		}
		if !slices.IsSorted(rows) || len(slices.Compact(slices.Clone(rows))) != len(rows) {
			t.Fatalf("rows not strictly ascending")
		}
	})
}

func FuzzZ85(f *testing.F) {
	f.Add("HelloWorld")
	f.Add("vBn[lx{q8@P<9BNH/isA")
	f.Fuzz(func(t *testing.T, s string) {
		b, err := Z85Decode(s)
		if err != nil {
			return
		}
		if Z85Encode(b) != s {
			t.Fatalf("round trip of %q gave %q", s, Z85Encode(b))
		}
	})
}

// TestEncode: the exported encoder's output decodes to its input.
func TestEncode(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	for trial := 0; trial < 30; trial++ {
		set := map[uint64]bool{}
		for range rng.IntN(20000) {
			set[uint64(rng.IntN(3))<<32|uint64(rng.IntN(1<<(10+trial%10)))] = true
		}
		rows := make([]uint64, 0, len(set))
		for r := range set {
			rows = append(rows, r)
		}
		slices.Sort(rows)
		got, err := Decode(Encode(rows), uint64(len(rows)))
		if err != nil || len(got) != len(rows) || len(rows) > 0 && !slices.Equal(got, RowSet(rows)) {
			t.Fatalf("trial %d: %d rows decoded to %d, %v", trial, len(rows), len(got), err)
		}
	}
}

// TestReadStored reads vectors from a deletion vector file and refuses a
// corrupt one.
func TestReadStored(t *testing.T) {
	a, b := Encode([]uint64{1, 2}), Encode([]uint64{7})
	file := []byte{1}
	var offs []int64
	for _, v := range [][]byte{a, b} {
		offs = append(offs, int64(len(file)))
		file = binary.BigEndian.AppendUint32(file, uint32(len(v)))
		file = append(file, v...)
		file = binary.BigEndian.AppendUint32(file, crc32.ChecksumIEEE(v))
	}
	got, err := ReadStored(bytes.NewReader(file), offs[1], int64(len(b)))
	if err != nil || !bytes.Equal(got, b) {
		t.Fatalf("second vector: %x, %v", got, err)
	}
	bad := bytes.Clone(file)
	bad[len(bad)-6] ^= 1
	tests := []struct {
		name       string
		file       []byte
		off, size  int64
		wantSubstr string
	}{
		{"checksum", bad, offs[1], int64(len(b)), "checksum"},
		{"size", file, offs[0], int64(len(a)) + 1, "sizeInBytes"},
		{"version", append([]byte{2}, file[1:]...), offs[0], int64(len(a)), "format version"},
		{"offset past the end", file, int64(len(file)) + 5, 4, "offset"},
		{"offset in the header", file, 0, 4, "header"},
	}
	for _, tc := range tests {
		if _, err := ReadStored(bytes.NewReader(tc.file), tc.off, tc.size); !errors.Is(err, ErrInvalid) || !strings.Contains(err.Error(), tc.wantSubstr) {
			t.Errorf("%s: %v", tc.name, err)
		}
	}
}

func FuzzReadStored(f *testing.F) {
	v := Encode([]uint64{1, 5})
	file := append([]byte{1}, binary.BigEndian.AppendUint32(nil, uint32(len(v)))...)
	file = append(file, v...)
	file = binary.BigEndian.AppendUint32(file, crc32.ChecksumIEEE(v))
	f.Add(file, int64(1), int64(len(v)))
	f.Fuzz(func(t *testing.T, file []byte, off, size int64) {
		data, err := ReadStored(bytes.NewReader(file), off, size%4096)
		if err != nil {
			if !errors.Is(err, ErrInvalid) {
				t.Fatalf("error does not wrap ErrInvalid: %v", err)
			}
			return
		}
		if int64(len(data)) != size%4096 {
			t.Fatalf("%d bytes for size %d", len(data), size%4096)
		}
	})
}
