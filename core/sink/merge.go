package sink

import (
	"context"
	"encoding/json"
	"fmt"
	"math"
	"math/big"
	"strconv"
	"strings"
	"time"

	"github.com/tributary-io/tributary/core/delta"
	"github.com/tributary-io/tributary/core/schema"
)

// Merge plans an upsert of a batch into a table by key columns:
//
//	MERGE INTO target t USING batch s ON s.k1 = t.k1 AND ...
//	WHEN MATCHED THEN UPDATE SET * WHEN NOT MATCHED THEN INSERT *
//
// Within a batch the last row of a key wins (files in order, rows in
// order), so the table holds each key once with its last value. As in
// SQL, a NULL key column never matches: such rows are inserted.
type Merge struct {
	// Keys are the key columns (data or partition columns), matched
	// case-insensitively.
	Keys []string
	// Files reads and writes data files.
	Files Files
	// Now is the clock of remove timestamps (time.Now when nil).
	Now func() time.Time
}

// MergePlan is a planned merge: the actions that apply it, to be
// committed with the batch's txn, and its metrics.
type MergePlan struct {
	// Actions are the removes of the rewritten target files, the adds of
	// their rewrites and the adds of the batch's (deduplicated) files.
	Actions []delta.Action
	// Written are the files the plan wrote (rewrites); Discard deletes them
	// when the plan is not committed.
	Written []delta.Add
	// Metrics are the MERGE operation metrics (Spark's names).
	Metrics Metrics

	live map[string]bool // live paths at planning (nil: no table)
}

// Metrics are a merge's operation metrics, named as Spark's MERGE reports them.
type Metrics struct {
	NumSourceRows         int64
	NumTargetRowsUpdated  int64
	NumTargetRowsInserted int64
	NumTargetRowsCopied   int64
	NumTargetFilesRemoved int64
	NumTargetFilesAdded   int64
	// NumTargetFilesSkipped counts live files not read: their partition
	// values or key statistics exclude every key of the batch.
	NumTargetFilesSkipped int64
	// NumSourceRowsSuperseded counts batch rows replaced by a later row of
	// the same key in the same batch.
	NumSourceRowsSuperseded int64
}

// Map returns the metrics as a commitInfo operationMetrics map.
func (m Metrics) Map() map[string]any {
	f := func(n int64) string { return strconv.FormatInt(n, 10) }
	return map[string]any{
		"numSourceRows":           f(m.NumSourceRows),
		"numTargetRowsUpdated":    f(m.NumTargetRowsUpdated),
		"numTargetRowsInserted":   f(m.NumTargetRowsInserted),
		"numTargetRowsCopied":     f(m.NumTargetRowsCopied),
		"numTargetRowsDeleted":    "0",
		"numTargetFilesRemoved":   f(m.NumTargetFilesRemoved),
		"numTargetFilesAdded":     f(m.NumTargetFilesAdded),
		"numSourceRowsSuperseded": f(m.NumSourceRowsSuperseded),
		"numTargetFilesSkipped":   f(m.NumTargetFilesSkipped),
	}
}

// Predicate is the merge condition as SQL (s.k = t.k AND ...), for the
// commitInfo's operationParameters.
func (m *Merge) Predicate() string {
	parts := make([]string, len(m.Keys))
	for i, k := range m.Keys {
		parts[i] = fmt.Sprintf("s.%s = t.%s", k, k)
	}
	return strings.Join(parts, " AND ")
}

// Plan plans the merge of batch (the batch's data files, written but not
// committed, in the order their rows arrived) into the table at snap
// (nil: no table yet). Batch files holding rows superseded by a later row
// of the same key are rewritten without them (the superseded originals are
// deleted); every live target file holding a row whose key the batch has
// is rewritten without that row and removed.
func (m *Merge) Plan(ctx context.Context, snap *delta.Snapshot, batch []delta.Add) (*MergePlan, error) {
	if len(m.Keys) == 0 {
		return nil, fmt.Errorf("sink: merge without key columns")
	}
	now := time.Now
	if m.Now != nil {
		now = m.Now
	}
	plan := &MergePlan{}
	ok := false
	defer func() {
		if !ok {
			plan.Discard(context.WithoutCancel(ctx), m.Files)
		}
	}()

	// The batch: the last row of each key, by file then row. Only the keys
	// are kept in memory; a file with superseded rows is read again.
	type loc struct{ file, row int }
	last := map[string]loc{}
	rowsOf := make([]int, len(batch))  // rows of each batch file
	nullKey := make([]int, len(batch)) // rows that never match (NULL key)
	bounds := newKeyBounds(m.Keys)
	for i := range batch {
		sch, rows, err := m.Files.Read(ctx, &batch[i])
		if err != nil {
			return nil, err
		}
		keyOf, err := m.keyFunc(sch, batch[i].PartitionValues, true)
		if err != nil {
			return nil, fmt.Errorf("sink: batch file %s: %w", batch[i].Path, err)
		}
		rowsOf[i] = len(rows)
		for j, r := range rows {
			plan.Metrics.NumSourceRows++
			if k, ok := keyOf(r); ok {
				last[k] = loc{i, j}
				bounds.add(sch, batch[i].PartitionValues, r)
			} else {
				nullKey[i]++
			}
		}
	}
	kept := make([]int, len(batch))
	for _, l := range last {
		kept[l.file]++
	}
	for i := range batch {
		src := &batch[i]
		if kept[i]+nullKey[i] == rowsOf[i] {
			plan.Actions = append(plan.Actions, delta.Action{Add: src})
			continue
		}
		plan.Metrics.NumSourceRowsSuperseded += int64(rowsOf[i] - kept[i] - nullKey[i])
		if kept[i]+nullKey[i] > 0 {
			sch, rows, err := m.Files.Read(ctx, src)
			if err != nil {
				return nil, err
			}
			keyOf, _ := m.keyFunc(sch, src.PartitionValues, true)
			var keep [][]any
			for j, r := range rows {
				if k, ok := keyOf(r); ok && last[k] != (loc{i, j}) {
					continue
				}
				keep = append(keep, r)
			}
			a, err := m.Files.Write(ctx, src, sch, keep)
			if err != nil {
				return nil, err
			}
			plan.Written = append(plan.Written, a)
			plan.Actions = append(plan.Actions, delta.Action{Add: &a})
		}
		// The superseded original was never committed.
		if err := m.Files.Delete(ctx, src); err != nil {
			return nil, err
		}
	}
	plan.Metrics.NumTargetRowsInserted = plan.Metrics.NumSourceRows - plan.Metrics.NumSourceRowsSuperseded

	// The target: every live file holding a key of the batch is rewritten
	// without those rows.
	if snap != nil {
		plan.live = make(map[string]bool, snap.NumFiles())
		for a := range snap.Files() {
			plan.live[a.Path] = true
			if len(last) == 0 {
				continue
			}
			if bounds.excludes(a) {
				plan.Metrics.NumTargetFilesSkipped++
				continue
			}
			if a.DeletionVector != nil {
				return nil, fmt.Errorf("%w %s: it has a deletion vector (merging into tables with deletion vectors is not supported yet)", ErrUnsupportedFile, a.Path)
			}
			sch, rows, err := m.Files.Read(ctx, a)
			if err != nil {
				return nil, err
			}
			keyOf, err := m.keyFunc(sch, a.PartitionValues, false)
			if err != nil {
				return nil, fmt.Errorf("sink: table file %s: %w", a.Path, err)
			}
			var keep [][]any
			for _, r := range rows {
				if k, ok := keyOf(r); ok {
					if _, hit := last[k]; hit {
						continue
					}
				}
				keep = append(keep, r)
			}
			if len(keep) == len(rows) {
				continue
			}
			matched := int64(len(rows) - len(keep))
			plan.Metrics.NumTargetRowsUpdated += matched
			plan.Metrics.NumTargetRowsInserted -= matched
			plan.Metrics.NumTargetFilesRemoved++
			plan.Actions = append(plan.Actions, delta.Action{Remove: RemoveOf(a, now())})
			if len(keep) > 0 {
				na, err := m.Files.Write(ctx, a, sch, keep)
				if err != nil {
					return nil, err
				}
				plan.Metrics.NumTargetRowsCopied += int64(len(keep))
				plan.Written = append(plan.Written, na)
				plan.Actions = append(plan.Actions, delta.Action{Add: &na})
			}
		}
	}
	for _, a := range plan.Actions {
		if a.Add != nil {
			plan.Metrics.NumTargetFilesAdded++
		}
	}
	ok = true
	return plan, nil
}

// Check reports ErrConflict when the table at snap no longer has exactly
// the live files the plan was made from (another writer added or removed
// files since): the plan would miss or resurrect rows.
func (p *MergePlan) Check(snap *delta.Snapshot) error {
	if snap == nil {
		if p.live != nil {
			return ErrConflict
		}
		return nil
	}
	if snap.NumFiles() != len(p.live) {
		return ErrConflict
	}
	for a := range snap.Files() {
		if !p.live[a.Path] {
			return ErrConflict
		}
	}
	return nil
}

// Discard deletes the files the plan wrote (best effort; leftovers are
// orphans VACUUM removes).
func (p *MergePlan) Discard(ctx context.Context, files Files) {
	for i := range p.Written {
		files.Delete(ctx, &p.Written[i])
	}
	p.Written = nil
}

// keyFunc returns the function that encodes a row's key (false when a key
// column is NULL or absent from the file: such a row never matches). With
// strict (the batch's own files), a key column the file lacks is an error.
func (m *Merge) keyFunc(sch *schema.StructType, parts map[string]*string, strict bool) (func([]any) (string, bool), error) {
	type col struct {
		idx  int     // data column index, or -1
		part *string // partition value (when idx < 0)
		null bool
	}
	cols := make([]col, len(m.Keys))
	for i, k := range m.Keys {
		if j := sch.FieldIndexFold(k); j >= 0 {
			cols[i] = col{idx: j}
			continue
		}
		found := false
		for name, v := range parts {
			if strings.EqualFold(name, k) {
				cols[i], found = col{idx: -1, part: v, null: v == nil}, true
				break
			}
		}
		if !found && strict {
			return nil, fmt.Errorf("%w: key column %s is not among the batch's columns", ErrNoKeyColumn, k)
		}
		if !found {
			cols[i] = col{idx: -1, null: true} // a column this file lacks reads as NULL
		}
	}
	return func(r []any) (string, bool) {
		var b strings.Builder
		for _, c := range cols {
			if c.null {
				return "", false
			}
			if c.idx < 0 {
				b.WriteString("p")
				b.WriteString(strconv.Quote(*c.part))
				continue
			}
			v := r[c.idx]
			if v == nil {
				return "", false
			}
			b.WriteString(encodeKey(v))
		}
		return b.String(), true
	}, nil
}

// encodeKey encodes one key value so that equal SQL values of one column
// encode equally whatever Go type the reader gave them.
func encodeKey(v any) string {
	switch x := v.(type) {
	case string:
		return "s" + strconv.Quote(x)
	case []byte:
		return "b" + strconv.Quote(string(x))
	case bool:
		return "z" + strconv.FormatBool(x)
	case int:
		return "i" + strconv.FormatInt(int64(x), 10)
	case int8:
		return "i" + strconv.FormatInt(int64(x), 10)
	case int16:
		return "i" + strconv.FormatInt(int64(x), 10)
	case int32:
		return "i" + strconv.FormatInt(int64(x), 10)
	case int64:
		return "i" + strconv.FormatInt(x, 10)
	case uint8:
		return "i" + strconv.FormatUint(uint64(x), 10)
	case uint16:
		return "i" + strconv.FormatUint(uint64(x), 10)
	case uint32:
		return "i" + strconv.FormatUint(uint64(x), 10)
	case uint64:
		return "i" + strconv.FormatUint(x, 10)
	case float32:
		return encodeFloat(float64(x))
	case float64:
		return encodeFloat(x)
	case time.Time:
		return "t" + strconv.FormatInt(x.UnixNano(), 10)
	case schema.Decimal:
		if x.Unscaled == nil {
			return "dnull"
		}
		r := new(big.Rat).SetFrac(x.Unscaled, new(big.Int).Exp(big.NewInt(10), big.NewInt(int64(x.Scale)), nil))
		return "d" + r.RatString()
	case *schema.Decimal:
		return encodeKey(*x)
	}
	return fmt.Sprintf("%T%v", v, v)
}

func encodeFloat(f float64) string {
	if math.IsNaN(f) {
		return "fNaN" // Spark: NaN = NaN is true
	}
	if f == 0 {
		f = 0 // -0.0 = 0.0
	}
	return "f" + strconv.FormatFloat(f, 'g', -1, 64)
}

// PlanLatest plans the merge of batch against the table's latest state:
// snap (nil: loaded; nil again when the table does not exist yet) is
// brought up to date and returned. The plan is nil when the table already
// holds txn{appID, txnVersion}: the batch is committed, its commit skips.
func (m *Merge) PlanLatest(ctx context.Context, table *delta.Table, snap *delta.Snapshot, appID string, txnVersion int64, batch []delta.Add) (*MergePlan, *delta.Snapshot, error) {
	snap, done, err := latestUnlessDone(ctx, table, snap, appID, txnVersion)
	if err != nil || done {
		return nil, snap, err
	}
	plan, err := m.Plan(ctx, snap, batch)
	if err != nil {
		return nil, snap, fmt.Errorf("planning the merge (mergeKeys=%s): %w", strings.Join(m.Keys, ","), err)
	}
	return plan, snap, nil
}

// CommitInfo makes a batch's commitInfo a MERGE's, as Spark records a
// foreachBatch MERGE (operation MERGE, its predicate and clauses, its
// metrics); the stream's own parameters (queryId, epochId) are kept.
func (p *MergePlan) CommitInfo(ci *delta.CommitInfo, keys []string) {
	pred, _ := json.Marshal([]string{(&Merge{Keys: keys}).Predicate()})
	ci.Operation = "MERGE"
	if ci.OperationParameters == nil {
		ci.OperationParameters = map[string]any{}
	}
	ci.OperationParameters["predicate"] = string(pred)
	ci.OperationParameters["matchedPredicates"] = `[{"actionType":"update"}]`
	ci.OperationParameters["notMatchedPredicates"] = `[{"actionType":"insert"}]`
	ci.OperationParameters["notMatchedBySourcePredicates"] = `[]`
	if ci.OperationMetrics == nil {
		ci.OperationMetrics = map[string]any{}
	}
	for k, v := range p.Metrics.Map() {
		ci.OperationMetrics[k] = v
	}
}
