// Package sink plans the Delta sink's writes that are not plain appends:
// the complete output mode (each batch replaces the table, as Delta's
// overwrite) and the upsert sink (each batch is MERGEd into the table by
// key columns, as the seeds' foreachBatch + MERGE examples do:
// WHEN MATCHED THEN UPDATE SET * WHEN NOT MATCHED THEN INSERT *).
//
// The planning is pure Delta: which files are removed (dataChange=true)
// and which are added; the caller commits the actions together with the
// batch's txn, so a batch is applied at most once whoever retries.
package sink

import (
	"context"
	"errors"
	"time"

	"github.com/tributary-io/tributary/core/delta"
	"github.com/tributary-io/tributary/core/schema"
)

// ErrConflict reports that the table changed (another writer added or
// removed data files) between the planning of a merge and its commit: the
// merge must be planned again from the new snapshot.
var ErrConflict = errors.New("sink: the table changed while the merge was planned (concurrent write); the batch is planned again on the next run")

// ErrNoKeyColumn reports a merge key column the batch's data lacks.
var ErrNoKeyColumn = errors.New("sink: option mergeKeys names a column the data does not have")

// ErrUnsupportedFile reports a target data file the merge cannot rewrite
// (a deletion vector or an absolute path).
var ErrUnsupportedFile = errors.New("sink: cannot rewrite data file")

// Files reads and writes the table's data files.
type Files interface {
	// Read returns the data columns of a data file: its schema and rows.
	Read(ctx context.Context, a *delta.Add) (*schema.StructType, [][]any, error)
	// Write writes rows (of schema sch) as a new data file in the
	// partition of like and returns its add action (dataChange=true).
	Write(ctx context.Context, like *delta.Add, sch *schema.StructType, rows [][]any) (delta.Add, error)
	// Delete removes a data file that was written but is not committed.
	Delete(ctx context.Context, a *delta.Add) error
}

// Overwrite returns a remove action (dataChange=true) for every live file
// of snap (nil: a table that does not exist yet, nothing to remove): with
// the batch's adds in the same commit, the table is replaced, as
// outputMode=complete and Delta's overwrite mode do.
func Overwrite(snap *delta.Snapshot, now time.Time) []delta.Action {
	if snap == nil {
		return nil
	}
	out := make([]delta.Action, 0, snap.NumFiles())
	for a := range snap.Files() {
		out = append(out, delta.Action{Remove: RemoveOf(a, now)})
	}
	return out
}

// RemoveOf is the remove action (dataChange=true) of a live file.
func RemoveOf(a *delta.Add, now time.Time) *delta.Remove {
	return &delta.Remove{
		Path:                 a.Path,
		DeletionTimestamp:    now.UnixMilli(),
		DataChange:           true,
		ExtendedFileMetadata: true,
		PartitionValues:      a.PartitionValues,
		Size:                 a.Size,
		Tags:                 a.Tags,
		DeletionVector:       a.DeletionVector,
		BaseRowID:            a.BaseRowID,
	}
}

// latestUnlessDone brings snap up to date for a PlanLatest (loading it when
// nil; nil again when the table does not exist yet) and reports done when
// the table already holds txn{appID, txnVersion}: the batch is committed.
func latestUnlessDone(ctx context.Context, table *delta.Table, snap *delta.Snapshot, appID string, txnVersion int64) (_ *delta.Snapshot, done bool, _ error) {
	if snap != nil {
		if err := snap.Update(ctx); err != nil {
			return nil, false, err
		}
	} else {
		var err error
		snap, err = table.Snapshot(ctx)
		if errors.Is(err, delta.ErrNotATable) {
			snap = nil
		} else if err != nil {
			return nil, false, err
		}
	}
	if snap != nil {
		if v, ok := snap.TxnVersion(appID); ok && v >= txnVersion {
			return snap, true, nil
		}
	}
	return snap, false, nil
}
