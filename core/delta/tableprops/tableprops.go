// Package tableprops applies Delta table properties that a stream sets
// (delta.enableTypeWidening, delta.appendOnly, ...) to a table: the
// configuration and protocol of a new table, the metaData (and protocol
// upgrade) that changes them on an existing one, and the data file
// statistics they ask for.
package tableprops

import (
	"fmt"
	"maps"
	"strconv"
	"strings"

	"github.com/tributary-io/tributary/core/delta"
	"github.com/tributary-io/tributary/core/options/tableopts"
	"github.com/tributary-io/tributary/core/parquetio"
)

// Merge returns conf with props set over it and whether that changed
// anything. conf is not modified; the result is never nil.
func Merge(conf, props map[string]string) (map[string]string, bool) {
	out := maps.Clone(conf)
	if out == nil {
		out = map[string]string{}
	}
	changed := false
	for k, v := range props {
		if old, ok := out[k]; !ok || old != v {
			out[k] = v
			changed = true
		}
	}
	return out, changed
}

// TypeWidening reports whether a configuration enables type widening.
func TypeWidening(conf map[string]string) bool {
	return strings.EqualFold(strings.TrimSpace(conf[delta.PropEnableTypeWidening]), "true")
}

// Upgrade returns the protocol a table with protocol p needs once its
// configuration is conf, and whether it differs from p: enabling type
// widening adds the typeWidening reader-writer feature, moving a legacy
// protocol to (3,7) with the features its versions implied listed
// (appendOnly and invariants for writer version 2). The typeWidening-preview
// feature counts as present.
func Upgrade(p delta.Protocol, conf map[string]string) (delta.Protocol, bool) {
	if !TypeWidening(conf) || p.HasWriterFeature(delta.FeatureTypeWidening) || p.HasWriterFeature(delta.FeatureTypeWideningPreview) {
		return p, false
	}
	return delta.WithReaderWriterFeature(p, delta.FeatureTypeWidening), true
}

// StatsOptions returns the statistics options of the data files a table
// with configuration conf gets: delta.dataSkippingStatsColumns when set
// (it wins), else delta.dataSkippingNumIndexedCols (default 32; 0 writes no
// min/max/nullCount, -1 covers every column). A value the table holds that
// cannot be parsed is an error naming the property.
func StatsOptions(conf map[string]string) (numIndexedCols int, noStats bool, statsColumns [][]string, err error) {
	if v, ok := conf[tableopts.PropDataSkippingStatsColumns]; ok && strings.TrimSpace(v) != "" {
		refs, err := tableopts.SplitStatsColumns(v)
		if err != nil {
			return 0, false, nil, fmt.Errorf("table property %s: %w", tableopts.PropDataSkippingStatsColumns, err)
		}
		for _, r := range refs {
			statsColumns = append(statsColumns, tableopts.StatsColumnPath(r))
		}
		return 0, false, statsColumns, nil
	}
	v, ok := conf[tableopts.PropDataSkippingNumIndexedCols]
	if !ok {
		return parquetio.DefaultNumIndexedCols, false, nil, nil
	}
	n, perr := strconv.Atoi(strings.TrimSpace(v))
	if perr != nil || n < -1 {
		return 0, false, nil, fmt.Errorf("table property %s=%q: want a number of columns, or -1 for all", tableopts.PropDataSkippingNumIndexedCols, v)
	}
	if n == 0 {
		return 0, true, nil, nil
	}
	return n, false, nil, nil
}
