package scan

import (
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"hash/crc32"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/tributary-io/tributary/core/delta"
	"github.com/tributary-io/tributary/core/delta/dv"
	"github.com/tributary-io/tributary/core/delta/internal/dirstore"
)

// dvTable writes a one-file table over the 10-row data file of
// kernel/table-with-dv-small (values 0..9) whose add carries dv.
func dvTable(t *testing.T, d *delta.DeletionVector) string {
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
	proto := delta.Protocol{MinReaderVersion: 3, MinWriterVersion: 7, ReaderFeatures: []string{delta.FeatureDeletionVectors}, WriterFeatures: []string{delta.FeatureDeletionVectors}}
	acts := []delta.Action{{Protocol: &proto}, {Metadata: &delta.Metadata{ID: "dv", SchemaString: `{"type":"struct","fields":[{"name":"value","type":"integer","nullable":true,"metadata":{}}]}`}},
		{Add: &delta.Add{Path: data, Size: int64(len(b)), DataChange: true, Stats: `{"numRecords":10}`, DeletionVector: d}}}
	var buf bytes.Buffer
	if err := delta.EncodeActions(&buf, acts); err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Join(dir, "_delta_log"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, filepath.FromSlash(delta.CommitKey(0))), buf.Bytes(), 0o644); err != nil {
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

func values(t *testing.T, tbl *delta.Table) []int32 {
	t.Helper()
	var out []int32
	_, err := RowsAt(context.Background(), tbl, -1, func(fr FileRows) error {
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
	enc := dv.Encode(deleted)
	size := int32(len(enc))
	for len(enc)%4 != 0 {
		enc = append(enc, 0)
	}
	t.Run("inline", func(t *testing.T) {
		dir := dvTable(t, &delta.DeletionVector{StorageType: "i", PathOrInlineDv: dv.Z85Encode(enc), SizeInBytes: size, Cardinality: 4})
		if got := values(t, delta.NewTable(dirstore.New(dir))); !slices.Equal(got, want) {
			t.Errorf("inline: %v, want %v", got, want)
		}
	})
	t.Run("relative with prefix", func(t *testing.T) {
		uuid := []byte{0xd2, 0xc6, 0x39, 0xaa, 0x88, 0x16, 0x43, 0x1a, 0xaa, 0xf6, 0xd3, 0xfe, 0x25, 0x12, 0xff, 0x61}
		desc := &delta.DeletionVector{StorageType: "u", PathOrInlineDv: "ab" + dv.Z85Encode(uuid), SizeInBytes: size, Cardinality: 4}
		dir := dvTable(t, desc)
		key, _ := delta.DVFileKey(desc, "")
		os.MkdirAll(filepath.Join(dir, "ab"), 0o755)
		// A second vector before ours: the offset matters.
		offs := dvFile(t, filepath.Join(dir, filepath.FromSlash(key)), dv.Encode([]uint64{1}), enc[:size])
		desc.Offset = &offs[1]
		b, _ := os.ReadFile(filepath.Join(dir, filepath.FromSlash(delta.CommitKey(0))))
		b = bytes.Replace(b, []byte(`"cardinality":4`), []byte(`"offset":`+itoa(offs[1])+`,"cardinality":4`), 1)
		os.WriteFile(filepath.Join(dir, filepath.FromSlash(delta.CommitKey(0))), b, 0o644)
		if got := values(t, delta.NewTable(dirstore.New(dir))); !slices.Equal(got, want) {
			t.Errorf("relative: %v, want %v", got, want)
		}
		// A flipped bit in the vector fails its checksum.
		raw, _ := os.ReadFile(filepath.Join(dir, filepath.FromSlash(key)))
		raw[len(raw)-6] ^= 1
		os.WriteFile(filepath.Join(dir, filepath.FromSlash(key)), raw, 0o644)
		_, err := RowsAt(ctx, delta.NewTable(dirstore.New(dir)), -1, func(FileRows) error { return nil })
		if !errors.Is(err, delta.ErrInvalidDeletionVector) || !strings.Contains(err.Error(), "checksum") {
			t.Errorf("corrupt vector: %v", err)
		}
	})
	t.Run("absolute", func(t *testing.T) {
		dir := dvTable(t, nil)
		offs := dvFile(t, filepath.Join(dir, "dvs.bin"), enc[:size])
		uri := "file://" + filepath.ToSlash(dir)
		dv := `"deletionVector":{"storageType":"p","pathOrInlineDv":"` + uri + `/dvs.bin","offset":` + itoa(offs[0]) + `,"sizeInBytes":` + itoa(size) + `,"cardinality":4}`
		b, _ := os.ReadFile(filepath.Join(dir, filepath.FromSlash(delta.CommitKey(0))))
		b = bytes.Replace(b, []byte(`"stats":`), []byte(dv+`,"stats":`), 1)
		os.WriteFile(filepath.Join(dir, filepath.FromSlash(delta.CommitKey(0))), b, 0o644)
		if got := values(t, delta.NewTable(dirstore.New(dir), delta.WithLocation(uri))); !slices.Equal(got, want) {
			t.Errorf("absolute: %v, want %v", got, want)
		}
		_, err := RowsAt(ctx, delta.NewTable(dirstore.New(dir)), -1, func(FileRows) error { return nil })
		if !errors.Is(err, delta.ErrAbsolutePath) {
			t.Errorf("absolute path without a location: %v", err)
		}
	})
	t.Run("cardinality mismatch", func(t *testing.T) {
		dir := dvTable(t, &delta.DeletionVector{StorageType: "i", PathOrInlineDv: dv.Z85Encode(enc), SizeInBytes: size, Cardinality: 3})
		_, err := RowsAt(ctx, delta.NewTable(dirstore.New(dir)), -1, func(FileRows) error { return nil })
		if !errors.Is(err, delta.ErrInvalidDeletionVector) {
			t.Errorf("cardinality 3 for 4 rows: %v", err)
		}
	})
	t.Run("row beyond the file", func(t *testing.T) {
		e := dv.Encode([]uint64{2, 10})
		n := int32(len(e))
		for len(e)%4 != 0 {
			e = append(e, 0)
		}
		dir := dvTable(t, &delta.DeletionVector{StorageType: "i", PathOrInlineDv: dv.Z85Encode(e), SizeInBytes: n, Cardinality: 2})
		_, err := RowsAt(ctx, delta.NewTable(dirstore.New(dir)), -1, func(FileRows) error { return nil })
		if !errors.Is(err, ErrUnreadableFile) {
			t.Errorf("row 10 of a 10-row file: %v", err)
		}
	})
}

func itoa(n int32) string { return strconv.Itoa(int(n)) }
