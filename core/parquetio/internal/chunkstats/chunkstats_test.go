package chunkstats

import (
	"testing"

	"github.com/parquet-go/parquet-go/format"
)

// TestUnmatchedStatsAreDropped: statistics that cannot be matched with the
// pages parquet-go wrote are left out, never guessed.
func TestUnmatchedStatsAreDropped(t *testing.T) {
	cc := &format.ColumnChunk{MetaData: format.ColumnMetaData{Statistics: format.Statistics{MinValue: []byte{}, MaxValue: []byte{}, NullCount: 3}}}
	ci := &format.ColumnIndex{NullPages: []bool{false}, MinValues: [][]byte{{}}, MaxValues: [][]byte{{}}}
	applyChunkStat(cc, &ci, nil, nil)
	st := cc.MetaData.Statistics
	if st.MinValue != nil || st.MaxValue != nil || ci != nil || st.NullCount != 3 {
		t.Errorf("after an unmatched row group: min %q max %q index %v null count %d; want none, none, nil, 3", st.MinValue, st.MaxValue, ci, st.NullCount)
	}
	// A chunk whose pages do not line up loses its column index only.
	ci = &format.ColumnIndex{NullPages: []bool{false}, MinValues: [][]byte{{}}, MaxValues: [][]byte{{}}}
	applyChunkStat(cc, &ci, nil, &Chunk{lo: []byte("a"), hi: []byte("b"), pages: []pageStat{{has: true, ok: true}}})
	if ci != nil || string(cc.MetaData.Statistics.MinValue) != "a" {
		t.Errorf("pages not matched: index %v, min %q; want no index, min \"a\"", ci, cc.MetaData.Statistics.MinValue)
	}
}
