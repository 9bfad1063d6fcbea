package ingest

import (
	"errors"
	"fmt"
	"strings"

	"github.com/tributary-io/tributary/core/delta"
	"github.com/tributary-io/tributary/core/delta/tableprops"
	"github.com/tributary-io/tributary/core/refresh"
	"github.com/tributary-io/tributary/core/schema"
	"github.com/tributary-io/tributary/core/schema/widen"
)

// ErrTypeWideningOff is wrapped when addNewColumnsWithTypeWidening would
// widen a column of a table that does not enable type widening: nothing is
// committed and the schema history is left as it was.
var ErrTypeWideningOff = errors.New("a column's type must widen but the table does not enable type widening")

// widenOptions are the widening rules of the stream's format: date →
// timestamp_ntz is a widening for Parquet files only (seed 002).
func (e *Engine) widenOptions() widen.Options {
	return widen.Options{DateToTimestampNTZ: e.Config.Format != nil && e.Config.Format.Name() == "parquet"}
}

// tableConfig is the configuration the table has once this stream's table
// properties are applied (snap nil: a table not created yet).
func (e *Engine) tableConfig(snap *delta.Snapshot) map[string]string {
	var conf map[string]string
	if snap != nil {
		conf = snap.Configuration()
	}
	out, _ := tableprops.Merge(conf, e.Config.TableProperties)
	return out
}

// checkWidening refuses the widenings found in file unless the table
// enables type widening (or this stream's options enable it) and may take
// schema changes (mergeSchema).
func (e *Engine) checkWidening(file string, changes []widen.Change, batch int64) error {
	var list []string
	for _, c := range changes {
		list = append(list, c.String())
	}
	if e.Config.NoMergeSchema && e.snap != nil {
		return fmt.Errorf("%w: batch %d: file %s widens %s: %s", ErrMergeSchemaOff, batch, file, strings.Join(list, ", "), mergeSchemaAdvice)
	}
	if !tableprops.TypeWidening(e.tableConfig(e.snap)) {
		return fmt.Errorf("%w: file %s widens %s; set the table property with --option %s=true (or ALTER TABLE ... SET TBLPROPERTIES ('%s' = 'true')) and run again; nothing was committed and the schema was not changed",
			ErrTypeWideningOff, file, strings.Join(list, ", "), delta.PropEnableTypeWidening, delta.PropEnableTypeWidening)
	}
	return nil
}

// tableSchema returns the schema the table at snap takes when a batch is
// written with the stream's schema sch: sch with the table's field metadata
// kept and each widened column's delta.typeChanges recorded. A dropped or
// retyped column that is not a widening, or a widening on a table without
// type widening, is an error wrapping ErrFullRefreshNeeded. snap nil gives
// sch.
func (e *Engine) tableSchema(snap *delta.Snapshot, sch *schema.StructType) (*schema.StructType, error) {
	if snap == nil || refresh.Refreshed(snap, e.appID()) {
		return sch, nil // a new table, or one a full refresh emptied
	}
	next, changes, err := widen.TableSchema(snap.Schema(), sch, e.widenOptions())
	if err != nil {
		return nil, fmt.Errorf("%w: %v: %s", ErrFullRefreshNeeded, err, RefreshHowTo)
	}
	if len(changes) > 0 && !tableprops.TypeWidening(e.tableConfig(snap)) {
		return nil, fmt.Errorf("%w: column %s, and the table does not enable type widening (%s): %s", ErrFullRefreshNeeded, changes[0], delta.PropEnableTypeWidening, RefreshHowTo)
	}
	return next, nil
}
