package maintenance

import (
	"bytes"
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"maps"
	"os"
	"path"
	"slices"
	"strconv"
	"strings"

	"github.com/google/uuid"

	"github.com/tributary-io/tributary/core/delta"
	"github.com/tributary-io/tributary/core/options/sparkvalue"
	"github.com/tributary-io/tributary/core/parquetio"
	"github.com/tributary-io/tributary/core/schema"
)

// PropTargetFileSize is the table property giving OPTIMIZE's target file
// size in bytes (Databricks' delta.targetFileSize).
const PropTargetFileSize = "delta.targetFileSize"

// DefaultTargetFileSize is OPTIMIZE's default target size (Delta's
// spark.databricks.delta.optimize.maxFileSize, 1 GiB).
const DefaultTargetFileSize = 1 << 30

// OptimizeOptions configures Optimize.
type OptimizeOptions struct {
	Options
	// TargetSize is the size in bytes of the files written; files at least
	// this large are left alone. 0 means the table's delta.targetFileSize,
	// else DefaultTargetFileSize.
	TargetSize int64
	// Partition, when non-empty, limits compaction to the partitions
	// whose values equal these (partition column -> value).
	Partition map[string]string
	// DryRun reports the bins without writing or committing anything.
	DryRun bool
	// TempDir holds the files being written ("" means os.TempDir()).
	TempDir string
}

// OptimizeResult is what Optimize did.
type OptimizeResult struct {
	// Version is the version committed (-1 when nothing was compacted).
	Version int64
	// ReadVersion is the version the files were chosen from.
	ReadVersion int64
	// TargetSize is the target applied.
	TargetSize int64
	// FilesRemoved, BytesRemoved, FilesAdded, BytesAdded describe the
	// commit (in a dry run: the files that would be compacted).
	FilesRemoved, FilesAdded int
	BytesRemoved, BytesAdded int64
	// Partitions counts the partitions compacted.
	Partitions int
	// Attempts counts commit attempts (each lost race is one more).
	Attempts int
	// DryRun is OptimizeOptions.DryRun.
	DryRun bool
}

// bin is a set of small files of one partition compacted into one file.
type bin struct {
	partition map[string]*string
	dir       string // the key prefix the new file goes under
	files     []*delta.Add
	bytes     int64
}

// Optimize compacts the small files of the table: per partition, files
// smaller than the target size are sorted by size and packed greedily into
// bins of at most the target size; every bin of two or more files becomes
// one file (more when the files' Parquet schemas differ, as after schema
// evolution: files are only merged with files of the same schema, so that
// every row reads back exactly as before). The commit removes the old files
// and adds the new ones with dataChange=false (operation OPTIMIZE). Files
// with deletion vectors are left alone. Tables with column mapping are
// refused (the new files would lose their field ids).
func Optimize(ctx context.Context, tbl *delta.Table, opts OptimizeOptions) (OptimizeResult, error) {
	snap, err := tbl.Snapshot(ctx)
	if err != nil {
		return OptimizeResult{}, err
	}
	res := OptimizeResult{Version: -1, ReadVersion: snap.Version, DryRun: opts.DryRun}
	if mode, err := snap.ColumnMappingMode(); err != nil {
		return res, err
	} else if mode != "" && mode != "none" {
		return res, fmt.Errorf("%w: optimize: table uses column mapping (%s=%s)", ErrUnsupportedTable, delta.PropColumnMappingMode, mode)
	}
	target := opts.TargetSize
	if target == 0 {
		target = DefaultTargetFileSize
		if v, ok := snap.Configuration()[PropTargetFileSize]; ok {
			n, err := sparkvalue.ParseBytes(v)
			if err != nil || n <= 0 {
				return res, fmt.Errorf("maintenance: table property %s=%q: want a positive size in bytes", PropTargetFileSize, v)
			}
			target = n
		}
	}
	if target < 0 {
		return res, fmt.Errorf("maintenance: optimize: target size %d is negative", target)
	}
	res.TargetSize = target
	for col := range opts.Partition {
		if !slices.Contains(snap.Metadata.PartitionColumns, col) {
			return res, fmt.Errorf("maintenance: optimize: %q is not a partition column of the table (partition columns: %v)", col, snap.Metadata.PartitionColumns)
		}
	}
	bins := plan(snap, target, opts.Partition)
	parts := make(map[string]bool)
	for _, b := range bins {
		res.FilesRemoved += len(b.files)
		res.BytesRemoved += b.bytes
		parts[b.dir] = true
	}
	res.Partitions = len(parts)
	if len(bins) == 0 || opts.DryRun {
		return res, nil
	}
	var adds []delta.Add
	var written []string
	discard := func() {
		for _, k := range written {
			if err := tbl.Store().Delete(context.WithoutCancel(ctx), k); err != nil {
				opts.log().WarnContext(ctx, "optimize: could not remove a file it wrote", "file", k, "error", err)
			}
		}
	}
	for _, b := range bins {
		a, keys, err := compact(ctx, tbl, b, opts)
		written = append(written, keys...)
		if err != nil {
			discard()
			return res, err
		}
		adds = append(adds, a...)
	}
	for _, a := range adds {
		res.FilesAdded++
		res.BytesAdded += a.Size
	}
	now := opts.now().UnixMilli()
	actions := make([]delta.Action, 0, 1+res.FilesRemoved+len(adds))
	actions = append(actions, delta.Action{}) // commitInfo, set per attempt
	for _, b := range bins {
		for _, f := range b.files {
			actions = append(actions, delta.Action{Remove: &delta.Remove{
				Path: f.Path, DeletionTimestamp: now, DataChange: false, ExtendedFileMetadata: true,
				PartitionValues: f.PartitionValues, Size: f.Size, Stats: f.Stats, Tags: f.Tags,
			}})
		}
	}
	for i := range adds {
		actions = append(actions, delta.Action{Add: &adds[i]})
	}
	for {
		res.Attempts++
		rv := snap.Version
		blind := false
		actions[0] = delta.Action{CommitInfo: &delta.CommitInfo{
			Timestamp: now,
			Operation: "OPTIMIZE",
			OperationParameters: map[string]any{
				"predicate": predicate(opts.Partition), "zOrderBy": "[]", "clusterBy": "[]", "auto": "false",
			},
			ReadVersion: &rv, IsolationLevel: "SnapshotIsolation", IsBlindAppend: &blind, EngineInfo: "tributary",
			OperationMetrics: map[string]any{
				"numRemovedFiles": strconv.Itoa(res.FilesRemoved), "numAddedFiles": strconv.Itoa(res.FilesAdded),
				"numRemovedBytes": strconv.FormatInt(res.BytesRemoved, 10), "numAddedBytes": strconv.FormatInt(res.BytesAdded, 10),
			},
		}}
		v, err := tbl.CommitSnapshot(ctx, snap, actions)
		if err == nil {
			res.Version = v
			opts.log().InfoContext(ctx, "optimize", "version", v, "removed", res.FilesRemoved, "added", res.FilesAdded)
			return res, nil
		}
		if !errors.Is(err, delta.ErrConcurrentCommit) || res.Attempts >= 20 {
			discard()
			return res, fmt.Errorf("maintenance: optimize: commit: %w", err)
		}
		// Another writer took the version: appends do not conflict; a
		// commit that removed one of our files, or changed the metadata,
		// does.
		meta := snap.Metadata
		if err := snap.Update(ctx); err != nil {
			discard()
			return res, err
		}
		if snap.Metadata.ID != meta.ID || !slices.Equal(snap.Metadata.PartitionColumns, meta.PartitionColumns) || snap.Metadata.SchemaString != meta.SchemaString {
			discard()
			return res, fmt.Errorf("%w: the table's metadata changed at version %d", ErrConflict, snap.Version)
		}
		for _, b := range bins {
			for _, f := range b.files {
				if cur, ok := snap.File(f.Path); !ok || cur.DeletionVector.UniqueID() != f.DeletionVector.UniqueID() {
					discard()
					return res, fmt.Errorf("%w: %s was removed or rewritten by version %d", ErrConflict, f.Path, snap.Version)
				}
			}
		}
	}
}

// plan groups the candidate files into bins.
func plan(snap *delta.Snapshot, target int64, only map[string]string) []*bin {
	byPart := make(map[string][]*delta.Add)
	for a := range snap.Files() {
		if a.DeletionVector != nil || a.Size >= target {
			continue
		}
		if !matches(a.PartitionValues, only) {
			continue
		}
		k := partitionKey(a.PartitionValues)
		byPart[k] = append(byPart[k], a)
	}
	var bins []*bin
	for _, k := range slices.Sorted(maps.Keys(byPart)) {
		files := byPart[k]
		slices.SortStableFunc(files, func(a, b *delta.Add) int {
			return cmp.Or(cmp.Compare(a.Size, b.Size), strings.Compare(a.Path, b.Path))
		})
		var cur *bin
		flush := func() {
			if cur != nil && len(cur.files) > 1 {
				bins = append(bins, cur)
			}
			cur = nil
		}
		for _, f := range files {
			if cur != nil && cur.bytes+f.Size > target {
				flush()
			}
			if cur == nil {
				cur = &bin{partition: f.PartitionValues, dir: dirOf(f.Path)}
			}
			cur.files = append(cur.files, f)
			cur.bytes += f.Size
		}
		flush()
	}
	return bins
}

func matches(pv map[string]*string, only map[string]string) bool {
	for c, want := range only {
		v, ok := pv[c]
		if !ok || v == nil || *v != want {
			return false
		}
	}
	return true
}

func partitionKey(pv map[string]*string) string {
	b, _ := json.Marshal(pv) // map keys are sorted
	return string(b)
}

// dirOf is the key prefix (ending in "/", or "") of a file's folder.
func dirOf(p string) string {
	key, err := delta.ObjectKey(p)
	if err != nil {
		return ""
	}
	if d := path.Dir(key); d != "." {
		return d + "/"
	}
	return ""
}

func predicate(only map[string]string) string {
	if len(only) == 0 {
		return "[]"
	}
	var parts []string
	for _, c := range slices.Sorted(maps.Keys(only)) {
		parts = append(parts, fmt.Sprintf("(%s = '%s')", c, strings.ReplaceAll(only[c], "'", "''")))
	}
	return `["` + strings.Join(parts, " AND ") + `"]`
}

// compact rewrites one bin: the files' rows in order, one output file per
// run of files with the same Parquet schema. It returns the adds and the
// keys it uploaded (also on error, to be removed).
func compact(ctx context.Context, tbl *delta.Table, b *bin, opts OptimizeOptions) ([]delta.Add, []string, error) {
	var adds []delta.Add
	var keys []string
	var out *outFile
	finish := func() error {
		if out == nil {
			return nil
		}
		a, key, err := out.close(ctx, tbl, b, opts)
		out = nil
		if key != "" {
			keys = append(keys, key)
		}
		if err != nil {
			return err
		}
		adds = append(adds, a)
		return nil
	}
	defer func() {
		if out != nil {
			out.abort()
		}
	}()
	for _, f := range b.files {
		st, rows, err := readData(ctx, tbl, f)
		if err != nil {
			return adds, keys, err
		}
		if out != nil && !sameSchema(out.schema, st) {
			if err := finish(); err != nil {
				return adds, keys, err
			}
		}
		if out == nil {
			if out, err = newOutFile(st, opts.TempDir); err != nil {
				return adds, keys, err
			}
		}
		if err := out.w.Write(rows); err != nil {
			return adds, keys, fmt.Errorf("maintenance: optimize: writing the rows of %s: %w", f.Path, err)
		}
	}
	err := finish()
	return adds, keys, err
}

func sameSchema(a, b *schema.StructType) bool {
	x, err1 := schema.MarshalDeltaJSON(a)
	y, err2 := schema.MarshalDeltaJSON(b)
	return err1 == nil && err2 == nil && x == y
}

// readData reads one data file's schema and rows.
func readData(ctx context.Context, tbl *delta.Table, f *delta.Add) (*schema.StructType, [][]any, error) {
	key, err := tbl.FileKey(f.Path)
	if err != nil {
		return nil, nil, fmt.Errorf("maintenance: optimize: file %q: %w", f.Path, err)
	}
	rc, err := tbl.Store().Get(ctx, key)
	if err != nil {
		return nil, nil, fmt.Errorf("maintenance: optimize: reading %s: %w", key, err)
	}
	data, err := io.ReadAll(rc)
	rc.Close()
	if err != nil {
		return nil, nil, fmt.Errorf("maintenance: optimize: reading %s: %w", key, err)
	}
	st, rows, err := parquetio.ReadFile(bytes.NewReader(data), int64(len(data)))
	if err != nil {
		return nil, nil, fmt.Errorf("maintenance: optimize: decoding %s: %w", key, err)
	}
	return st, rows, nil
}

// outFile is a compacted file being written to a temporary file.
type outFile struct {
	schema *schema.StructType
	tmp    *os.File
	w      *parquetio.Writer
}

func newOutFile(st *schema.StructType, tempDir string) (*outFile, error) {
	tmp, err := os.CreateTemp(tempDir, "tributary-optimize-*.parquet")
	if err != nil {
		return nil, fmt.Errorf("maintenance: optimize: %w", err)
	}
	w, err := parquetio.NewWriter(tmp, st, parquetio.WriterOptions{TempDir: tempDir})
	if err != nil {
		tmp.Close()
		os.Remove(tmp.Name())
		return nil, fmt.Errorf("maintenance: optimize: %w", err)
	}
	return &outFile{schema: st, tmp: tmp, w: w}, nil
}

func (o *outFile) abort() {
	o.tmp.Close()
	os.Remove(o.tmp.Name())
}

// close finishes the file, uploads it into the bin's folder and returns its
// add (dataChange=false). key is set once the upload was attempted.
func (o *outFile) close(ctx context.Context, tbl *delta.Table, b *bin, opts OptimizeOptions) (delta.Add, string, error) {
	defer o.abort()
	stats, err := o.w.Close()
	if err != nil {
		return delta.Add{}, "", fmt.Errorf("maintenance: optimize: finishing Parquet file: %w", err)
	}
	size, err := o.tmp.Seek(0, io.SeekCurrent)
	if err != nil {
		return delta.Add{}, "", err
	}
	if _, err := o.tmp.Seek(0, io.SeekStart); err != nil {
		return delta.Add{}, "", err
	}
	stats.TightBounds = false
	js, err := stats.JSON()
	if err != nil {
		return delta.Add{}, "", err
	}
	key := fmt.Sprintf("%spart-00000-%s-c000.snappy.parquet", b.dir, uuid.NewString())
	if err := tbl.Store().Put(ctx, key, o.tmp); err != nil {
		return delta.Add{}, key, fmt.Errorf("maintenance: optimize: uploading %s: %w", key, err)
	}
	return delta.Add{
		Path:             delta.EncodePath(key),
		PartitionValues:  maps.Clone(b.partition),
		Size:             size,
		ModificationTime: opts.now().UnixMilli(),
		DataChange:       false,
		Stats:            js,
	}, key, nil
}
