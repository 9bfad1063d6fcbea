package sink

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/tributary-io/tributary/core/delta"
	"github.com/tributary-io/tributary/core/delta/scan"
	"github.com/tributary-io/tributary/core/schema"
	"github.com/tributary-io/tributary/core/sink/predicate"
)

// ErrReplaceWhereMismatch reports a batch row that does not satisfy the
// replaceWhere predicate (Delta's DELTA_REPLACE_WHERE_MISMATCH): nothing
// is committed.
var ErrReplaceWhereMismatch = errors.New("[DELTA_REPLACE_WHERE_MISMATCH] Written data does not conform to partial table overwrite condition or constraint")

// ErrReplaceWhere reports a replaceWhere predicate that cannot be applied
// to the table (unknown column, type mismatch, column mapping).
var ErrReplaceWhere = errors.New("option replaceWhere")

// Replace plans a selective overwrite, Delta's replaceWhere: in one commit
// the table's rows matching the predicate are removed and the batch's rows
// added, provided every batch row matches it. Files whose partition values
// or statistics show that every row matches are removed whole; files with
// some matching rows are rewritten without them (the kept rows in a new
// file, dataChange=true); the others are not touched. A row where the
// predicate is NULL is kept, as Delta does (its rewrite keeps rows where
// the condition is not TRUE).
type Replace struct {
	// Where is the parsed replaceWhere predicate.
	Where *predicate.Expr
	// Files reads and writes data files.
	Files Files
	// Now is the clock of remove timestamps (time.Now when nil).
	Now func() time.Time
}

// ReplacePlan is a planned selective overwrite: the actions that apply it,
// to be committed with the batch's txn, and its metrics.
type ReplacePlan struct {
	// Actions are the removes of the matching target files, the adds of
	// the rewrites of partially matching ones and the batch's adds.
	Actions []delta.Action
	// Written are the rewrites; Discard deletes them when the plan is not
	// committed.
	Written []delta.Add
	// Metrics are the overwrite's operation metrics.
	Metrics ReplaceMetrics

	where string
	live  map[string]bool // live paths at planning (nil: no table)
}

// ReplaceMetrics are a selective overwrite's operation metrics, named as
// Spark's WRITE with replaceWhere reports them.
type ReplaceMetrics struct {
	NumFiles        int64 // files added (batch files and rewrites)
	NumOutputRows   int64 // batch rows plus copied rows
	NumOutputBytes  int64
	NumCopiedRows   int64 // rows kept by rewrites
	NumDeletedRows  int64 // target rows removed (-1 when a file without stats was removed whole)
	NumRemovedFiles int64
	NumRemovedBytes int64
	// NumTargetFilesSkipped counts live files not read: their metadata
	// shows that no row matches, or that every row does.
	NumTargetFilesSkipped int64
}

// Map returns the metrics as a commitInfo operationMetrics map.
func (m ReplaceMetrics) Map() map[string]any {
	f := func(n int64) string { return strconv.FormatInt(n, 10) }
	out := map[string]any{
		"numFiles":              f(m.NumFiles),
		"numOutputRows":         f(m.NumOutputRows),
		"numOutputBytes":        f(m.NumOutputBytes),
		"numCopiedRows":         f(m.NumCopiedRows),
		"numRemovedFiles":       f(m.NumRemovedFiles),
		"numRemovedBytes":       f(m.NumRemovedBytes),
		"numAddedChangeFiles":   "0",
		"numTargetFilesSkipped": f(m.NumTargetFilesSkipped),
	}
	if m.NumDeletedRows >= 0 {
		out["numDeletedRows"] = f(m.NumDeletedRows)
	}
	return out
}

// fileCols maps the bound columns to a data file's values.
type fileCols struct {
	cols []predicate.Column
	idx  []int // data column index in the file, or -1
	part []any // partition value (idx < 0)
}

func newFileCols(cols []predicate.Column, used []int, sch *schema.StructType, a *delta.Add) (*fileCols, error) {
	fc := &fileCols{cols: cols, idx: make([]int, len(cols)), part: make([]any, len(cols))}
	for i := range fc.idx {
		fc.idx[i] = -1
	}
	for _, i := range used {
		c := cols[i]
		if sch != nil {
			if j := sch.FieldIndexFold(c.Name); j >= 0 {
				fc.idx[i] = j
				continue
			}
		}
		for name, v := range a.PartitionValues {
			if !strings.EqualFold(name, c.Name) {
				continue
			}
			if v != nil {
				pv, err := scan.PartitionValue(*v, c.Type)
				if err != nil {
					return nil, fmt.Errorf("file %s: partition value %s=%q: %w", a.Path, name, *v, err)
				}
				fc.part[i] = pv
			}
		}
	}
	return fc, nil
}

func (fc *fileCols) getter(row []any) func(int) any {
	return func(i int) any {
		if j := fc.idx[i]; j >= 0 && j < len(row) {
			return row[j]
		}
		return fc.part[i]
	}
}

// ranges returns what a's partition values and statistics say about the
// bound columns.
func ranges(cols []predicate.Column, parts map[string]bool, a *delta.Add) func(int) predicate.Range {
	st, err := a.ParseStats()
	if err != nil {
		st = nil
	}
	return func(i int) predicate.Range {
		c := cols[i]
		for name, v := range a.PartitionValues {
			if strings.EqualFold(name, c.Name) {
				if v == nil {
					return predicate.Range{Exact: true}
				}
				pv, err := scan.PartitionValue(*v, c.Type)
				if err != nil {
					return predicate.Unknown
				}
				return predicate.Range{Exact: true, Value: pv}
			}
		}
		if parts[strings.ToLower(c.Name)] {
			return predicate.Range{Exact: true} // a partition column the file has no value of: NULL
		}
		if st == nil || st.NumRecords <= 0 {
			return predicate.Unknown
		}
		r := predicate.Range{NullCount: -1, NumRecords: st.NumRecords}
		if n, ok := statNumber(st.NullCount, c.Name); ok {
			if x, err := strconv.ParseInt(n, 10, 64); err == nil && x >= 0 && x <= st.NumRecords {
				r.NullCount = x
			}
		}
		lo, ok1 := statNumber(st.MinValues, c.Name)
		hi, ok2 := statNumber(st.MaxValues, c.Name)
		if !ok1 || !ok2 {
			return r
		}
		switch c.Type {
		case schema.Long, schema.Integer, schema.Short, schema.Byte, schema.DateType, schema.Timestamp, schema.TimestampNTZ:
		default:
			if _, ok := c.Type.(schema.DecimalType); !ok {
				return r // strings, floats, booleans: not used
			}
		}
		lv, err1 := scan.PartitionValue(lo, c.Type)
		hv, err2 := scan.PartitionValue(hi, c.Type)
		if err1 != nil || err2 != nil || lv == nil || hv == nil {
			return r
		}
		if t, ok := hv.(time.Time); ok {
			// Timestamp statistics are truncated to milliseconds (toward
			// zero by some writers): widen both bounds by one.
			hv = t.Add(time.Millisecond)
			lv = lv.(time.Time).Add(-time.Millisecond)
		}
		r.Min, r.Max = lv, hv
		return r
	}
}

// statNumber returns the statistic of top-level column name as text.
func statNumber(m map[string]any, name string) (string, bool) {
	for k, v := range m {
		if !strings.EqualFold(k, name) {
			continue
		}
		switch x := v.(type) {
		case json.Number:
			return x.String(), true
		case string:
			return x, true
		case float64:
			return strconv.FormatFloat(x, 'f', -1, 64), true
		}
		return "", false
	}
	return "", false
}

// Columns returns the columns a predicate binds to: the batch's schema,
// then the table's columns the batch lacks.
func Columns(batch, table *schema.StructType) []predicate.Column {
	var cols []predicate.Column
	seen := map[string]bool{}
	for _, st := range []*schema.StructType{batch, table} {
		if st == nil {
			continue
		}
		for _, f := range st.Fields {
			if !seen[strings.ToLower(f.Name)] {
				seen[strings.ToLower(f.Name)] = true
				cols = append(cols, predicate.Column{Name: f.Name, Type: f.Type})
			}
		}
	}
	return cols
}

// Plan plans the selective overwrite of the table at snap (nil: no table
// yet) by batch (the batch's data files, written but not committed) whose
// rows have schema sch. It fails with ErrReplaceWhereMismatch, having
// written nothing, when a batch row does not satisfy the predicate.
func (r *Replace) Plan(ctx context.Context, snap *delta.Snapshot, sch *schema.StructType, batch []delta.Add) (*ReplacePlan, error) {
	now := time.Now
	if r.Now != nil {
		now = r.Now
	}
	var table *schema.StructType
	parts := map[string]bool{}
	if snap != nil {
		for _, c := range snap.Metadata.PartitionColumns {
			parts[strings.ToLower(c)] = true
		}
		mode, err := snap.ColumnMappingMode()
		if err != nil {
			return nil, err
		}
		if mode != delta.ColumnMappingNone {
			return nil, fmt.Errorf("%w: the table uses column mapping (mode %s), which a selective overwrite does not support yet", ErrReplaceWhere, mode)
		}
		table = snap.Schema()
	}
	cols := Columns(sch, table)
	where, err := r.Where.Bind(cols)
	if err != nil {
		return nil, fmt.Errorf("%w=%s: %w", ErrReplaceWhere, r.Where, err)
	}
	plan := &ReplacePlan{where: r.Where.String()}
	ok := false
	defer func() {
		if !ok {
			plan.Discard(context.WithoutCancel(ctx), r.Files)
		}
	}()

	// The constraint: every batch row satisfies the predicate (NULL does
	// not), as Delta checks before it commits.
	for i := range batch {
		a := &batch[i]
		plan.Metrics.NumOutputBytes += a.Size
		if st, err := a.ParseStats(); err == nil && st != nil && st.NumRecords > 0 &&
			where.Possible(ranges(cols, parts, a)) == predicate.Of(predicate.True) {
			plan.Metrics.NumOutputRows += st.NumRecords
			continue // the partition values (or stats) alone satisfy it
		}
		fsch, rows, err := r.Files.Read(ctx, a)
		if err != nil {
			return nil, err
		}
		fc, err := newFileCols(cols, where.Columns(), fsch, a)
		if err != nil {
			return nil, err
		}
		plan.Metrics.NumOutputRows += int64(len(rows))
		for _, row := range rows {
			get := fc.getter(row)
			if where.Eval(get) != predicate.True {
				return nil, r.mismatch(where, cols, get)
			}
		}
	}

	// The target: matching rows go.
	if snap != nil {
		plan.live = make(map[string]bool, snap.NumFiles())
		for a := range snap.Files() {
			plan.live[a.Path] = true
			set := where.Possible(ranges(cols, parts, a))
			if !set.Has(predicate.True) {
				plan.Metrics.NumTargetFilesSkipped++
				continue
			}
			if set == predicate.Of(predicate.True) {
				plan.Metrics.NumTargetFilesSkipped++
				plan.remove(a, now())
				if st, err := a.ParseStats(); err == nil && st != nil && st.NumRecords > 0 && plan.Metrics.NumDeletedRows >= 0 {
					n := st.NumRecords
					if a.DeletionVector != nil {
						n -= a.DeletionVector.Cardinality
					}
					plan.Metrics.NumDeletedRows += n
				} else {
					plan.Metrics.NumDeletedRows = -1
				}
				continue
			}
			if a.DeletionVector != nil {
				return nil, fmt.Errorf("%w %s: it has a deletion vector and only some of its rows match replaceWhere (rewriting files with deletion vectors is not supported yet)", ErrUnsupportedFile, a.Path)
			}
			fsch, rows, err := r.Files.Read(ctx, a)
			if err != nil {
				return nil, err
			}
			fc, err := newFileCols(cols, where.Columns(), fsch, a)
			if err != nil {
				return nil, err
			}
			var keep [][]any
			for _, row := range rows {
				if where.Eval(fc.getter(row)) != predicate.True {
					keep = append(keep, row)
				}
			}
			if len(keep) == len(rows) {
				continue
			}
			if plan.Metrics.NumDeletedRows >= 0 {
				plan.Metrics.NumDeletedRows += int64(len(rows) - len(keep))
			}
			plan.remove(a, now())
			if len(keep) > 0 {
				na, err := r.Files.Write(ctx, a, fsch, keep)
				if err != nil {
					return nil, err
				}
				plan.Written = append(plan.Written, na)
				plan.Actions = append(plan.Actions, delta.Action{Add: &na})
				plan.Metrics.NumCopiedRows += int64(len(keep))
				plan.Metrics.NumOutputRows += int64(len(keep))
				plan.Metrics.NumOutputBytes += na.Size
				plan.Metrics.NumFiles++
			}
		}
	}
	for i := range batch {
		plan.Actions = append(plan.Actions, delta.Action{Add: &batch[i]})
		plan.Metrics.NumFiles++
	}
	ok = true
	return plan, nil
}

func (p *ReplacePlan) remove(a *delta.Add, now time.Time) {
	p.Actions = append(p.Actions, delta.Action{Remove: RemoveOf(a, now)})
	p.Metrics.NumRemovedFiles++
	p.Metrics.NumRemovedBytes += a.Size
}

// mismatch is Delta's error for a batch row outside the predicate: the
// predicate and the row's values of its columns.
func (r *Replace) mismatch(where *predicate.Bound, cols []predicate.Column, get func(int) any) error {
	var b strings.Builder
	fmt.Fprintf(&b, " '%s'.\n[DELTA_VIOLATE_CONSTRAINT_WITH_VALUES] CHECK constraint EXPRESSION(%s) (%s) violated by row with values:", r.Where, r.Where, r.Where)
	for _, i := range where.Columns() {
		fmt.Fprintf(&b, "\n - %s : %s", cols[i].Name, showValue(get(i)))
	}
	return fmt.Errorf("%w%s", ErrReplaceWhereMismatch, b.String())
}

// showValue renders a row value as Spark's constraint error does.
func showValue(v any) string {
	switch x := v.(type) {
	case nil:
		return "null"
	case schema.Date:
		return time.Unix(int64(x)*86400, 0).UTC().Format("2006-01-02")
	case time.Time:
		return x.UTC().Format("2006-01-02 15:04:05.999999")
	case schema.Decimal:
		if x.Unscaled == nil {
			return "null"
		}
		s := x.Unscaled.String()
		if x.Scale <= 0 {
			return s
		}
		neg := strings.HasPrefix(s, "-")
		s = strings.TrimPrefix(s, "-")
		for len(s) <= x.Scale {
			s = "0" + s
		}
		s = s[:len(s)-x.Scale] + "." + s[len(s)-x.Scale:]
		if neg {
			s = "-" + s
		}
		return s
	case []byte:
		return fmt.Sprintf("%X", x)
	}
	return fmt.Sprint(v)
}

// Check reports ErrConflict when the table at snap no longer has exactly
// the live files the plan was made from.
func (p *ReplacePlan) Check(snap *delta.Snapshot) error {
	return (&MergePlan{live: p.live}).Check(snap)
}

// Discard deletes the files the plan wrote (best effort).
func (p *ReplacePlan) Discard(ctx context.Context, files Files) {
	for i := range p.Written {
		files.Delete(ctx, &p.Written[i])
	}
	p.Written = nil
}

// CommitInfo makes a batch's commitInfo a selective overwrite's, as Spark
// records a foreachBatch write with replaceWhere (operation WRITE, mode
// Overwrite, the predicate, the metrics); the stream's own parameters
// (queryId, epochId) are kept.
func (p *ReplacePlan) CommitInfo(ci *delta.CommitInfo, partitionBy []string) {
	ci.Operation = "WRITE"
	if ci.OperationParameters == nil {
		ci.OperationParameters = map[string]any{}
	}
	pb, _ := json.Marshal(nonNilStrings(partitionBy))
	ci.OperationParameters["mode"] = "Overwrite"
	ci.OperationParameters["partitionBy"] = string(pb)
	ci.OperationParameters["predicate"] = p.where
	if ci.OperationMetrics == nil {
		ci.OperationMetrics = map[string]any{}
	}
	for k, v := range p.Metrics.Map() {
		ci.OperationMetrics[k] = v
	}
}

func nonNilStrings(s []string) []string {
	if s == nil {
		return []string{}
	}
	return s
}

// PlanLatest plans the selective overwrite against the table's latest
// state: snap (nil: loaded; nil again when the table does not exist yet)
// is brought up to date and returned. The plan is nil when the table
// already holds txn{appID, txnVersion}: the batch is committed, its commit
// skips.
func (r *Replace) PlanLatest(ctx context.Context, table *delta.Table, snap *delta.Snapshot, appID string, txnVersion int64, sch *schema.StructType, batch []delta.Add) (*ReplacePlan, *delta.Snapshot, error) {
	snap, done, err := latestUnlessDone(ctx, table, snap, appID, txnVersion)
	if err != nil || done {
		return nil, snap, err
	}
	plan, err := r.Plan(ctx, snap, sch, batch)
	return plan, snap, err
}
