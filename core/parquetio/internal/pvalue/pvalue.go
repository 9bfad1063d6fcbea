// Package pvalue sets the levels of parquet-go Values without
// parquet.Value.Level's call: Level is not inlined (it may panic), and the
// column batch calls it once per value appended, which made it a tenth of
// the column path's CPU time.
//
// It does so through a struct with parquet.Value's memory layout in
// parquet-go v0.32.0 (the version go.mod pins). The build fails if the
// sizes differ, and TestMatchesLevel compares every kind and level with
// Level's result, so a parquet-go upgrade that changes the layout fails the
// tests rather than writing wrong files.
package pvalue

import (
	"unsafe"

	"github.com/parquet-go/parquet-go"
)

// value mirrors parquet.Value (value.go of parquet-go v0.32.0).
type value struct {
	ptr             *byte
	u64             uint64
	kind            int8
	definitionLevel byte
	repetitionLevel byte
	columnIndex     uint16 // XOR'd: the zero value is -1
}

// The build fails when the sizes differ (a negative or too large index).
var _ = [1]struct{}{}[unsafe.Sizeof(value{})-unsafe.Sizeof(parquet.Value{})]
var _ = [1]struct{}{}[unsafe.Sizeof(parquet.Value{})-unsafe.Sizeof(value{})]

// Level is v.Level(r, d, c) for levels in [0, parquet.MaxRepetitionLevel]
// and a column in [0, parquet.MaxColumnIndex], which the caller guarantees
// (out of range they are cut to their low bits instead of a panic).
func Level(v parquet.Value, r, d, c int) parquet.Value {
	p := (*value)(unsafe.Pointer(&v))
	p.repetitionLevel = byte(r)
	p.definitionLevel = byte(d)
	p.columnIndex = ^uint16(c)
	return v
}
