package sink

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"os"
	"path"
	"strings"
	"time"

	"github.com/google/uuid"

	"github.com/tributary-io/tributary/core/delta"
	"github.com/tributary-io/tributary/core/objstore"
	"github.com/tributary-io/tributary/core/parquetio"
	"github.com/tributary-io/tributary/core/schema"
)

// StoreFiles is Files over the table's object store.
type StoreFiles struct {
	// Store is rooted at the table.
	Store objstore.Store
	// TempDir holds files while they are written ("" = os.TempDir()).
	TempDir string
	// Codec is the Parquet codec (parquetio's names; "" is snappy).
	Codec string
	// Infix is the codec part of new file names (".snappy", ".zstd", ...).
	Infix string
	// Now is the clock of modification times (time.Now when nil).
	Now func() time.Time
	// Stats are the statistics options of the table's data files
	// (NumIndexedCols, NoStats, StatsColumns: delta.dataSkipping*).
	Stats parquetio.WriterOptions
}

// Read implements Files.
func (f *StoreFiles) Read(ctx context.Context, a *delta.Add) (*schema.StructType, [][]any, error) {
	if a.DeletionVector != nil {
		return nil, nil, fmt.Errorf("%w %s: it has a deletion vector", ErrUnsupportedFile, a.Path)
	}
	key, err := delta.ObjectKey(a.Path)
	if err != nil {
		return nil, nil, fmt.Errorf("%w %s: %w", ErrUnsupportedFile, a.Path, err)
	}
	rc, err := f.Store.Get(ctx, key)
	if err != nil {
		return nil, nil, fmt.Errorf("sink: reading data file %s: %w", key, err)
	}
	defer rc.Close()
	data, err := io.ReadAll(rc)
	if err != nil {
		return nil, nil, fmt.Errorf("sink: reading data file %s: %w", key, err)
	}
	sch, rows, err := parquetio.ReadFile(bytes.NewReader(data), int64(len(data)))
	if err != nil {
		return nil, nil, fmt.Errorf("sink: decoding data file %s: %w", key, err)
	}
	return sch, rows, nil
}

// Write implements Files: the new file goes to like's directory.
func (f *StoreFiles) Write(ctx context.Context, like *delta.Add, sch *schema.StructType, rows [][]any) (delta.Add, error) {
	key, err := delta.ObjectKey(like.Path)
	if err != nil {
		return delta.Add{}, fmt.Errorf("%w %s: %w", ErrUnsupportedFile, like.Path, err)
	}
	dir := ""
	if i := strings.LastIndexByte(key, '/'); i >= 0 {
		dir = key[:i+1]
	}
	tmp, err := os.CreateTemp(f.TempDir, "tributary-merge-*.parquet")
	if err != nil {
		return delta.Add{}, fmt.Errorf("sink: creating temporary Parquet file: %w", err)
	}
	defer func() {
		tmp.Close()
		os.Remove(tmp.Name())
	}()
	opts := f.Stats
	opts.TempDir, opts.Compression = f.TempDir, f.Codec
	pw, err := parquetio.NewWriter(tmp, sch, opts)
	if err != nil {
		return delta.Add{}, fmt.Errorf("sink: creating Parquet writer: %w", err)
	}
	if err := pw.Write(rows); err != nil {
		return delta.Add{}, fmt.Errorf("sink: writing Parquet: %w", err)
	}
	stats, err := pw.Close()
	if err != nil {
		return delta.Add{}, fmt.Errorf("sink: finishing Parquet file: %w", err)
	}
	size, err := tmp.Seek(0, io.SeekCurrent)
	if err != nil {
		return delta.Add{}, err
	}
	if _, err := tmp.Seek(0, io.SeekStart); err != nil {
		return delta.Add{}, err
	}
	infix := f.Infix
	if infix == "" && (f.Codec == "" || f.Codec == "snappy") {
		infix = ".snappy"
	}
	newKey := path.Join(dir, fmt.Sprintf("part-00000-%s-c000%s.parquet", uuid.NewString(), infix))
	if err := f.Store.Put(ctx, newKey, tmp); err != nil {
		return delta.Add{}, fmt.Errorf("sink: uploading data file %s: %w", newKey, err)
	}
	stats.TightBounds = false
	js, err := stats.JSON()
	if err != nil {
		return delta.Add{}, err
	}
	now := time.Now
	if f.Now != nil {
		now = f.Now
	}
	return delta.Add{
		Path:             delta.EncodePath(newKey),
		PartitionValues:  like.PartitionValues,
		Size:             size,
		ModificationTime: now().UnixMilli(),
		DataChange:       true,
		Stats:            js,
	}, nil
}

// Delete implements Files.
func (f *StoreFiles) Delete(ctx context.Context, a *delta.Add) error {
	key, err := delta.ObjectKey(a.Path)
	if err != nil {
		return fmt.Errorf("%w %s: %w", ErrUnsupportedFile, a.Path, err)
	}
	if err := f.Store.Delete(ctx, key); err != nil {
		return fmt.Errorf("sink: deleting uncommitted data file %s: %w", key, err)
	}
	return nil
}
