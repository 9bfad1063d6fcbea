// Package scan reads the live rows of a Delta table: each data file in
// the table's logical schema (column mapping resolved by physical name or
// field id, types widened, partition columns typed from the add's partition
// values) with the rows its deletion vector removes dropped, one file at a
// time so that memory stays bounded by one file. It also counts live rows
// without reading data (stats, Parquet footers, deletion vector
// cardinality). The Delta streaming source and the tests read tables
// through it.
package scan

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"
	"sync"

	"github.com/tributary-io/tributary/core/delta"
	"github.com/tributary-io/tributary/core/parquetio"
	"github.com/tributary-io/tributary/core/schema"
)

// ErrUnreadableFile is wrapped when a data file cannot be read in the
// table's schema: a column whose type cannot be converted, a partition value
// that does not parse, a deletion vector naming rows the file does not have.
var ErrUnreadableFile = errors.New("delta: data file unreadable")

// FileRows is the live rows of one data file.
type FileRows struct {
	// Add is the file's add action.
	Add *delta.Add
	// Rows are the file's rows not removed by its deletion vector, in file
	// order, in the snapshot's logical schema (Snapshot.Schema(), partition
	// columns included) and the row representation of package schema.
	Rows [][]any
}

// ReadAdd reads the live rows of one data file of this table (an add of
// this snapshot or of a commit read with the same schema): the Parquet file
// is read from the table's store, columns are resolved by the column mapping
// mode and converted to the logical types (type widening), partition
// columns are filled from the add's partition values, and the rows its
// deletion vector removes are dropped. Memory is bounded by one file.
func ReadAdd(ctx context.Context, s *delta.Snapshot, a *delta.Add) ([][]any, error) {
	mode, err := s.ColumnMappingMode()
	if err != nil {
		return nil, err
	}
	t := s.Table()
	key, err := t.FileKey(a.Path)
	if err != nil {
		return nil, err
	}
	deleted, err := t.LoadDeletionVector(ctx, a.DeletionVector)
	if err != nil {
		return nil, fmt.Errorf("delta: data file %s: %w", key, err)
	}
	data, err := readObject(ctx, t, key)
	if err != nil {
		return nil, err
	}
	rows, err := readLogical(data, s.Schema(), s.Metadata.PartitionColumns, a.PartitionValues, mode, deleted)
	if err != nil {
		return nil, fmt.Errorf("delta: data file %s: %w", key, err)
	}
	return rows, nil
}

// readObject reads a whole data file (memory bounded by one file).
func readObject(ctx context.Context, t *delta.Table, key string) ([]byte, error) {
	rc, err := t.Store().Get(ctx, key)
	if err != nil {
		return nil, fmt.Errorf("delta: read data file %s: %w", key, err)
	}
	defer rc.Close()
	b, err := io.ReadAll(rc)
	if err != nil {
		return nil, fmt.Errorf("delta: read data file %s: %w", key, err)
	}
	return b, nil
}

// Rows calls fn with the live rows of each active file, one file at a
// time in path order (memory is bounded by the largest file). It stops at
// the first error, or when fn returns one.
func Rows(ctx context.Context, s *delta.Snapshot, fn func(FileRows) error) error {
	for a := range s.Files() {
		if err := ctx.Err(); err != nil {
			return err
		}
		rows, err := ReadAdd(ctx, s, a)
		if err != nil {
			return err
		}
		if err := fn(FileRows{Add: a, Rows: rows}); err != nil {
			return err
		}
	}
	return nil
}

// RowsAt loads the table as of version (-1: the latest) and calls fn with
// the live rows of each of its files (see Rows). It returns the snapshot
// it read.
func RowsAt(ctx context.Context, t *delta.Table, version int64, fn func(FileRows) error) (*delta.Snapshot, error) {
	var snap *delta.Snapshot
	var err error
	if version < 0 {
		snap, err = t.Snapshot(ctx)
	} else {
		snap, err = t.SnapshotAt(ctx, version)
	}
	if err != nil {
		return nil, err
	}
	return snap, Rows(ctx, snap, fn)
}

// readLogical decodes a Parquet data file into rows of the logical schema.
func readLogical(data []byte, logical *schema.StructType, partCols []string, partVals map[string]*string, mode string, dv delta.RowSet) ([][]any, error) {
	fileSchema, rows, err := parquetio.ReadFile(bytes.NewReader(data), int64(len(data)))
	if err != nil {
		return nil, err
	}
	var ids *idNode
	if mode == delta.ColumnMappingID {
		if ids, err = fileFieldIDs(data); err != nil {
			return nil, err
		}
	}
	if len(dv) > 0 && dv[len(dv)-1] >= uint64(len(rows)) {
		return nil, fmt.Errorf("%w: deletion vector removes row %d, the file has %d rows", ErrUnreadableFile, dv[len(dv)-1], len(rows))
	}
	// Each logical column comes from a partition value or a file column.
	type source struct {
		part    bool
		partVal any
		col     int // file column, -1: absent (null)
		conv    converter
	}
	srcs := make([]source, len(logical.Fields))
	for i, f := range logical.Fields {
		if isPartitionColumn(partCols, f.Name) {
			phys := delta.PhysicalName(f, mode)
			v, err := parsePartitionValue(partVals, phys, f.Name, f.Type)
			if err != nil {
				return nil, err
			}
			srcs[i] = source{part: true, partVal: v}
			continue
		}
		j := matchField(fileSchema, ids, f, mode)
		srcs[i] = source{col: j}
		if j >= 0 {
			c, err := buildConverter(f.Type, fileSchema.Fields[j].Type, ids.child(j), mode, f.Name)
			if err != nil {
				return nil, err
			}
			srcs[i].conv = c
		}
	}
	out := make([][]any, 0, len(rows)-len(dv))
	next := 0 // index into dv
	for r, row := range rows {
		if next < len(dv) && dv[next] == uint64(r) {
			next++
			continue
		}
		lr := make([]any, len(srcs))
		for i, s := range srcs {
			switch {
			case s.part:
				lr[i] = s.partVal
			case s.col >= 0:
				v, err := s.conv(row[s.col])
				if err != nil {
					return nil, fmt.Errorf("row %d: %w", r, err)
				}
				lr[i] = v
			}
		}
		out = append(out, lr)
		rows[r] = nil // let the file's rows go as the logical ones are built
	}
	return out, nil
}

func isPartitionColumn(cols []string, name string) bool {
	for _, c := range cols {
		if strings.EqualFold(c, name) {
			return true
		}
	}
	return false
}

// matchField finds the file field holding the logical field f: by field
// id (id mode), physical name (name mode) or name (case-insensitively as
// Spark does when there is no exact match). -1 when absent.
func matchField(file *schema.StructType, ids *idNode, f schema.Field, mode string) int {
	if mode == delta.ColumnMappingID {
		id, ok := delta.ColumnID(f)
		if !ok || ids == nil {
			return -1
		}
		for j := range file.Fields {
			if c := ids.child(j); c != nil && c.id == id && c.hasID {
				return j
			}
		}
		return -1
	}
	name := delta.PhysicalName(f, mode)
	if j := file.FieldIndex(name); j >= 0 {
		return j
	}
	if mode == delta.ColumnMappingNone {
		return file.FieldIndexFold(name)
	}
	return -1
}

// RowCount is a snapshot's live row count (DESCRIBE DETAIL's numRecords).
type RowCount struct {
	// Rows is the number of live rows: the files' records minus the rows
	// their deletion vectors remove.
	Rows int64
	// FromFooters counts the files whose stats lack numRecords, counted
	// from their Parquet footer instead.
	FromFooters int
	// DeletedByDVs is the rows removed by deletion vectors.
	DeletedByDVs int64
}

// footerReaders bounds the data files whose footers are read at once.
const footerReaders = 8

// CountRows counts the snapshot's live rows without reading data: each
// file's stats numRecords or, when the stats lack it (tables written
// without stats), the row count in the file's Parquet footer; minus the
// cardinality of each file's deletion vector.
func CountRows(ctx context.Context, s *delta.Snapshot) (RowCount, error) {
	var rc RowCount
	var need []*delta.Add
	for a := range s.Files() {
		n, ok := statsNumRecords(a.Stats)
		if !ok {
			need = append(need, a)
		} else {
			rc.Rows += n
		}
		if a.DeletionVector != nil {
			rc.DeletedByDVs += a.DeletionVector.Cardinality
		}
	}
	rc.FromFooters = len(need)
	counts := make([]int64, len(need))
	errs := make([]error, len(need))
	sem := make(chan struct{}, footerReaders)
	var wg sync.WaitGroup
	for i, a := range need {
		sem <- struct{}{}
		wg.Add(1)
		go func() {
			defer func() { <-sem; wg.Done() }()
			counts[i], errs[i] = footerRows(ctx, s, a)
		}()
	}
	wg.Wait()
	for i := range need {
		if errs[i] != nil {
			return RowCount{}, errs[i]
		}
		rc.Rows += counts[i]
	}
	rc.Rows -= rc.DeletedByDVs
	return rc, nil
}

// statsNumRecords returns numRecords from an add's stats JSON, ok=false
// when there are no stats or they lack it.
func statsNumRecords(stats string) (int64, bool) {
	if stats == "" {
		return 0, false
	}
	var st struct {
		NumRecords *int64 `json:"numRecords"`
	}
	if err := json.Unmarshal([]byte(stats), &st); err != nil || st.NumRecords == nil {
		return 0, false
	}
	return *st.NumRecords, true
}

func footerRows(ctx context.Context, s *delta.Snapshot, a *delta.Add) (int64, error) {
	key, err := s.Table().FileKey(a.Path)
	if err != nil {
		return 0, err
	}
	data, err := readObject(ctx, s.Table(), key)
	if err != nil {
		return 0, err
	}
	n, err := parquetio.NumRows(bytes.NewReader(data), int64(len(data)))
	if err != nil {
		return 0, fmt.Errorf("delta: data file %s: %w", key, err)
	}
	return n, nil
}
