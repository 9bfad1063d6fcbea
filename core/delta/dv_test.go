package delta

import (
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"hash/crc32"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/tributary-io/tributary/core/delta/internal/dirstore"
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
	out := binary.LittleEndian.AppendUint32(nil, dvMagic)
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
	d := &DeletionVector{StorageType: "u", PathOrInlineDv: "vBn[lx{q8@P<9BNH/isA"}
	key, err := d.DVFileKey("")
	if err != nil || key != "deletion_vector_61d16c75-6994-46b7-a15b-8b538852e50e.bin" {
		t.Fatalf("DVFileKey = %q, %v", key, err)
	}
	// PROTOCOL.md example 1: a random prefix before the UUID.
	d = &DeletionVector{StorageType: "u", PathOrInlineDv: "ab^-aqEH.-t@S}K{vb[*k^"}
	if key, err = d.DVFileKey(""); err != nil || key != "ab/deletion_vector_d2c639aa-8816-431a-aaf6-d3fe2512ff61.bin" {
		t.Fatalf("DVFileKey with prefix = %q, %v", key, err)
	}
	for _, bad := range []string{"abcd", "abcd~", "#####"} {
		if _, err := z85Decode(bad); !errors.Is(err, ErrInvalidDeletionVector) {
			t.Errorf("z85Decode(%q) err = %v", bad, err)
		}
	}
	b := []byte{0x86, 0x4F, 0xD2, 0x6F, 0xB5, 0x59, 0xF7, 0x5B} // ZeroMQ spec: "HelloWorld"
	if s := z85Encode(b); s != "HelloWorld" {
		t.Fatalf("z85Encode = %q", s)
	}
	if back, err := z85Decode("HelloWorld"); err != nil || !bytes.Equal(back, b) {
		t.Fatalf("z85Decode = %x, %v", back, err)
	}
}

func TestDecodeRoaringArray(t *testing.T) {
	ctx := context.Background()
	// An inline DV as delta-spark writes it (portable format): rows 1, 3, 5.
	got, err := (&Table{}).LoadDeletionVector(ctx, &DeletionVector{
		StorageType: "i", PathOrInlineDv: "^Bg9^0rr910000000000iXQKl0rr91000625c8Xg0rri41POJ5", SizeInBytes: 38, Cardinality: 3})
	if err != nil || !slices.Equal(got, RowSet{1, 3, 5}) {
		t.Fatalf("inline DV: %v, %v", got, err)
	}
	// PROTOCOL.md's inline example 3 holds the native layout written big
	// endian (magic 0x6439d3d0); delta-spark refuses it, and so do we.
	_, err = (&Table{}).LoadDeletionVector(ctx, &DeletionVector{
		StorageType: "i", PathOrInlineDv: "wi5b=000010000siXQKl0rr91000f55c8Xg0@@D72lkbi5=-{L", SizeInBytes: 40, Cardinality: 6})
	if !errors.Is(err, ErrInvalidDeletionVector) || !strings.Contains(err.Error(), "magic number") {
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
			dec, err := decodeRoaringArray(enc, uint64(len(rows)))
			if err != nil || !slices.Equal(dec, RowSet(rows)) && len(rows) > 0 {
				t.Fatalf("kind %d, %d rows: decoded %d rows, %v", kind, len(rows), len(dec), err)
			}
			for _, r := range rows[:min(len(rows), 50)] {
				if !dec.Contains(r) || dec.Contains(r+1) && !set[r+1] {
					t.Fatalf("Contains(%d) wrong", r)
				}
			}
			if len(rows) > 0 {
				if _, err := decodeRoaringArray(enc, uint64(len(rows)-1)); !errors.Is(err, ErrInvalidDeletionVector) {
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
		if _, err := decodeRoaringArray(b, 100); !errors.Is(err, ErrInvalidDeletionVector) {
			t.Errorf("bad input %d accepted: %v", i, err)
		}
	}
}

func FuzzDecodeRoaringArray(f *testing.F) {
	f.Add(encodeRoaringArray([]uint64{3, 4, 7, 11, 18, 29}, encArray))
	f.Add(encodeRoaringArray([]uint64{1, 2, 3, 70000, 1 << 33}, encRun))
	f.Add(encodeRoaringArray([]uint64{5, 4096, 9000}, encBitmap))
	f.Fuzz(func(t *testing.T, b []byte) {
		rows, err := decodeRoaringArray(b, 1<<20)
		if err != nil {
			if !errors.Is(err, ErrInvalidDeletionVector) {
				t.Fatalf("error does not wrap ErrInvalidDeletionVector: %v", err)
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
		b, err := z85Decode(s)
		if err != nil {
			return
		}
		if z85Encode(b) != s {
			t.Fatalf("round trip of %q gave %q", s, z85Encode(b))
		}
	})
}

// dvTable writes a one-file table over the 10-row data file of
// kernel/table-with-dv-small (values 0..9) whose add carries dv.
func dvTable(t *testing.T, dv *DeletionVector) string {
	t.Helper()
	src := fixture(t, "kernel/table-with-dv-small")
	dir := t.TempDir()
	const data = "part-00000-fae5310a-a37d-4e51-827b-c3d5516560ca-c000.snappy.parquet"
	b, err := os.ReadFile(filepath.Join(src, data))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, data), b, 0o644); err != nil {
		t.Fatal(err)
	}
	proto := Protocol{MinReaderVersion: 3, MinWriterVersion: 7, ReaderFeatures: []string{FeatureDeletionVectors}, WriterFeatures: []string{FeatureDeletionVectors}}
	acts := []Action{{Protocol: &proto}, {Metadata: &Metadata{ID: "dv", SchemaString: `{"type":"struct","fields":[{"name":"value","type":"integer","nullable":true,"metadata":{}}]}`}},
		{Add: &Add{Path: data, Size: int64(len(b)), DataChange: true, Stats: `{"numRecords":10}`, DeletionVector: dv}}}
	var buf bytes.Buffer
	if err := EncodeActions(&buf, acts); err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Join(dir, "_delta_log"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, filepath.FromSlash(CommitKey(0))), buf.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	return dir
}

// dvFile writes a deletion vector file holding the vectors and returns
// each one's offset.
func dvFile(t *testing.T, path string, vecs ...[]byte) []int32 {
	t.Helper()
	out := []byte{1}
	var offs []int32
	for _, v := range vecs {
		offs = append(offs, int32(len(out)))
		out = binary.BigEndian.AppendUint32(out, uint32(len(v)))
		out = append(out, v...)
		out = binary.BigEndian.AppendUint32(out, crc32.ChecksumIEEE(v))
	}
	if err := os.WriteFile(path, out, 0o644); err != nil {
		t.Fatal(err)
	}
	return offs
}

func values(t *testing.T, tbl *Table) []int32 {
	t.Helper()
	var out []int32
	_, err := tbl.ReadRowsAt(context.Background(), -1, func(fr FileRows) error {
		for _, r := range fr.Rows {
			out = append(out, r[0].(int32))
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	slices.Sort(out)
	return out
}

// TestDeletionVectorStorageTypes reads the same data file with a deletion
// vector stored inline, in a relative (UUID) file and in an absolute-path
// file, and the real Databricks table.
func TestDeletionVectorStorageTypes(t *testing.T) {
	ctx := context.Background()
	// The table Databricks wrote: DELETE WHERE value IN (0, 9).
	if got := values(t, openFixture(t, "kernel/table-with-dv-small")); !slices.Equal(got, []int32{1, 2, 3, 4, 5, 6, 7, 8}) {
		t.Errorf("table-with-dv-small: %v", got)
	}
	deleted := []uint64{0, 3, 4, 9}
	want := []int32{1, 2, 5, 6, 7, 8}
	enc := encodeRoaringArray(deleted, encArray)
	size := int32(len(enc))
	for len(enc)%4 != 0 {
		enc = append(enc, 0)
	}
	t.Run("inline", func(t *testing.T) {
		dir := dvTable(t, &DeletionVector{StorageType: "i", PathOrInlineDv: z85Encode(enc), SizeInBytes: size, Cardinality: 4})
		if got := values(t, NewTable(dirstore.New(dir))); !slices.Equal(got, want) {
			t.Errorf("inline: %v, want %v", got, want)
		}
	})
	t.Run("relative with prefix", func(t *testing.T) {
		uuid := []byte{0xd2, 0xc6, 0x39, 0xaa, 0x88, 0x16, 0x43, 0x1a, 0xaa, 0xf6, 0xd3, 0xfe, 0x25, 0x12, 0xff, 0x61}
		dv := &DeletionVector{StorageType: "u", PathOrInlineDv: "ab" + z85Encode(uuid), SizeInBytes: size, Cardinality: 4}
		dir := dvTable(t, dv)
		key, _ := dv.DVFileKey("")
		os.MkdirAll(filepath.Join(dir, "ab"), 0o755)
		// A second vector before ours: the offset matters.
		offs := dvFile(t, filepath.Join(dir, filepath.FromSlash(key)), encodeRoaringArray([]uint64{1}, encRun), enc[:size])
		dv.Offset = &offs[1]
		b, _ := os.ReadFile(filepath.Join(dir, filepath.FromSlash(CommitKey(0))))
		b = bytes.Replace(b, []byte(`"cardinality":4`), []byte(`"offset":`+itoa(offs[1])+`,"cardinality":4`), 1)
		os.WriteFile(filepath.Join(dir, filepath.FromSlash(CommitKey(0))), b, 0o644)
		if got := values(t, NewTable(dirstore.New(dir))); !slices.Equal(got, want) {
			t.Errorf("relative: %v, want %v", got, want)
		}
		// A flipped bit in the vector fails its checksum.
		raw, _ := os.ReadFile(filepath.Join(dir, filepath.FromSlash(key)))
		raw[len(raw)-6] ^= 1
		os.WriteFile(filepath.Join(dir, filepath.FromSlash(key)), raw, 0o644)
		_, err := NewTable(dirstore.New(dir)).ReadRowsAt(ctx, -1, func(FileRows) error { return nil })
		if !errors.Is(err, ErrInvalidDeletionVector) || !strings.Contains(err.Error(), "checksum") {
			t.Errorf("corrupt vector: %v", err)
		}
	})
	t.Run("absolute", func(t *testing.T) {
		dir := dvTable(t, nil)
		offs := dvFile(t, filepath.Join(dir, "dvs.bin"), enc[:size])
		uri := "file://" + filepath.ToSlash(dir)
		dv := `"deletionVector":{"storageType":"p","pathOrInlineDv":"` + uri + `/dvs.bin","offset":` + itoa(offs[0]) + `,"sizeInBytes":` + itoa(size) + `,"cardinality":4}`
		b, _ := os.ReadFile(filepath.Join(dir, filepath.FromSlash(CommitKey(0))))
		b = bytes.Replace(b, []byte(`"stats":`), []byte(dv+`,"stats":`), 1)
		os.WriteFile(filepath.Join(dir, filepath.FromSlash(CommitKey(0))), b, 0o644)
		if got := values(t, NewTable(dirstore.New(dir), WithLocation(uri))); !slices.Equal(got, want) {
			t.Errorf("absolute: %v, want %v", got, want)
		}
		_, err := NewTable(dirstore.New(dir)).ReadRowsAt(ctx, -1, func(FileRows) error { return nil })
		if !errors.Is(err, ErrAbsolutePath) {
			t.Errorf("absolute path without a location: %v", err)
		}
	})
	t.Run("cardinality mismatch", func(t *testing.T) {
		dir := dvTable(t, &DeletionVector{StorageType: "i", PathOrInlineDv: z85Encode(enc), SizeInBytes: size, Cardinality: 3})
		_, err := NewTable(dirstore.New(dir)).ReadRowsAt(ctx, -1, func(FileRows) error { return nil })
		if !errors.Is(err, ErrInvalidDeletionVector) {
			t.Errorf("cardinality 3 for 4 rows: %v", err)
		}
	})
	t.Run("row beyond the file", func(t *testing.T) {
		e := encodeRoaringArray([]uint64{2, 10}, encArray)
		n := int32(len(e))
		for len(e)%4 != 0 {
			e = append(e, 0)
		}
		dir := dvTable(t, &DeletionVector{StorageType: "i", PathOrInlineDv: z85Encode(e), SizeInBytes: n, Cardinality: 2})
		_, err := NewTable(dirstore.New(dir)).ReadRowsAt(ctx, -1, func(FileRows) error { return nil })
		if !errors.Is(err, ErrUnreadableFile) {
			t.Errorf("row 10 of a 10-row file: %v", err)
		}
	})
}

func itoa(n int32) string { return strconv.Itoa(int(n)) }
