// Package pqread decodes Parquet files into Delta rows; package parquetio
// re-exports it (ReadFile, NumRows, OpenReader, FileSchema, FileReader).
package pqread

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"math/big"
	"strings"
	"time"

	"github.com/parquet-go/parquet-go"
	"github.com/parquet-go/parquet-go/format"

	"github.com/tributary-io/tributary/core/parquetio/internal/ptree"
	"github.com/tributary-io/tributary/core/schema"
)

// maxReadRows bounds the rows ReadFile materializes, so that a corrupt
// footer cannot make it allocate without limit.
const maxReadRows = 1 << 28

// NumRows returns the number of rows recorded in the footer of the Parquet
// file r of size bytes.
func NumRows(r io.ReaderAt, size int64) (int64, error) {
	f, err := openFile(r, size)
	if err != nil {
		return 0, err
	}
	return f.NumRows(), nil
}

// openFile opens a Parquet file, turning parquet-go panics on malformed
// input into ErrCorrupt.
func openFile(r io.ReaderAt, size int64) (f *parquet.File, err error) {
	defer recoverCorrupt(&err)
	// Check the magic bytes and footer length before parquet-go allocates
	// a buffer of the length the file claims.
	if size < 12 {
		return nil, fmt.Errorf("%w: %d bytes is too short", ptree.ErrCorrupt, size)
	}
	var tail [8]byte
	if _, err := r.ReadAt(tail[:], size-8); err != nil {
		return nil, fmt.Errorf("%w: reading footer: %w", ptree.ErrCorrupt, err)
	}
	if string(tail[4:]) != "PAR1" {
		return nil, fmt.Errorf("%w: missing PAR1 magic at the end", ptree.ErrCorrupt)
	}
	if n := int64(binary.LittleEndian.Uint32(tail[:4])); n > size-12 {
		return nil, fmt.Errorf("%w: footer length %d exceeds file size %d", ptree.ErrCorrupt, n, size)
	}
	f, err = parquet.OpenFile(r, size, parquet.SkipPageIndex(true), parquet.SkipBloomFilters(true))
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ptree.ErrCorrupt, err)
	}
	if err := checkCodecs(f); err != nil {
		return nil, err
	}
	return f, nil
}

// checkCodecs refuses LZ4_RAW column chunks. parquet-go v0.32 reads them
// wrongly: its page decompression keeps the pooled page buffer when the
// LZ4 codec returns a fresh one (it does when the page compressed less
// than 3:1), so a page decodes from stale bytes, into an error or,
// silently, into wrong values. Refused until that is fixed; pyarrow,
// Spark and delta-rs read such files correctly.
func checkCodecs(f *parquet.File) error {
	for _, rg := range f.Metadata().RowGroups {
		for _, c := range rg.Columns {
			if c.MetaData.Codec == format.Lz4Raw {
				return fmt.Errorf("%w: column %s is LZ4_RAW compressed", ptree.ErrUnsupportedCodec, strings.Join(c.MetaData.PathInSchema, "."))
			}
		}
	}
	return nil
}

// ReadFile decodes the whole Parquet file r of size bytes into its Delta
// schema and rows in the row representation of package schema. It reads
// what Spark and other writers produce: 2- and 3-level lists, maps, INT96
// and milli/micro/nanosecond timestamps (as UTC time.Time), unsigned
// integers (widened as Spark does), decimals of every physical type.
//
// A corrupt file yields an error wrapping ErrCorrupt. Corrupt page headers
// can still make parquet-go allocate what they claim (up to about 2 GB)
// before the error; check NumRows and the file size first for untrusted
// input.
func ReadFile(r io.ReaderAt, size int64) (*schema.StructType, [][]any, error) {
	f, err := openFile(r, size)
	if err != nil {
		return nil, nil, err
	}
	tree, err := ptree.BuildTree(f.Schema())
	if err != nil {
		return nil, nil, err
	}
	if err := checkCounts(f); err != nil {
		return nil, nil, err
	}
	a := &assembler{tree: tree, cols: make([][]parquet.Value, len(tree.Leaves))}
	buf := make([]parquet.Row, 256)
	var rows [][]any
	for _, rg := range f.RowGroups() {
		if err := a.readRowGroup(rg, buf, &rows); err != nil {
			return nil, nil, err
		}
	}
	st, _ := tree.Type.(*schema.StructType)
	return st, rows, nil
}

// checkCounts rejects footers whose row counts are inconsistent: negative,
// not summing up to the file's count, above maxReadRows, or above the value
// count of a column chunk (every row holds at least one value per column).
func checkCounts(f *parquet.File) error {
	md := f.Metadata()
	if md.NumRows < 0 || md.NumRows > maxReadRows {
		return fmt.Errorf("%w: footer claims %d rows", ptree.ErrCorrupt, md.NumRows)
	}
	var sum int64
	for i, rg := range md.RowGroups {
		if rg.NumRows < 0 || rg.NumRows > md.NumRows {
			return fmt.Errorf("%w: row group %d claims %d rows", ptree.ErrCorrupt, i, rg.NumRows)
		}
		sum += rg.NumRows
		for _, c := range rg.Columns {
			if c.MetaData.NumValues < rg.NumRows {
				return fmt.Errorf("%w: row group %d has %d rows but column %v has %d values", ptree.ErrCorrupt, i, rg.NumRows, c.MetaData.PathInSchema, c.MetaData.NumValues)
			}
		}
	}
	if sum != md.NumRows {
		return fmt.Errorf("%w: row groups hold %d rows, footer claims %d", ptree.ErrCorrupt, sum, md.NumRows)
	}
	return nil
}

func openRows(rg parquet.RowGroup) (rr parquet.Rows, err error) {
	defer recoverCorrupt(&err)
	return rg.Rows(), nil
}

func readRows(rr parquet.Rows, buf []parquet.Row) (n int, err error) {
	defer recoverCorrupt(&err)
	return rr.ReadRows(buf)
}

func closeRows(rr parquet.Rows) {
	defer func() { _ = recover() }()
	_ = rr.Close()
}

func recoverCorrupt(err *error) {
	if p := recover(); p != nil {
		*err = fmt.Errorf("%w: decoder panic: %v", ptree.ErrCorrupt, p)
	}
}

type assembler struct {
	tree *ptree.Node
	cols [][]parquet.Value // values of the current row, per leaf column
	pos  []int             // next unread value per column
}

func (a *assembler) readRowGroup(rg parquet.RowGroup, buf []parquet.Row, out *[][]any) error {
	rr, err := openRows(rg)
	if err != nil {
		return err
	}
	defer closeRows(rr)
	for {
		n, err := readRows(rr, buf)
		for i := range n {
			row, aerr := a.assembleRow(buf[i])
			if aerr != nil {
				return aerr
			}
			*out = append(*out, row)
			if len(*out) > maxReadRows {
				return fmt.Errorf("%w: more than %d rows", ptree.ErrCorrupt, maxReadRows)
			}
		}
		if errors.Is(err, io.EOF) {
			return nil
		}
		if err != nil {
			return fmt.Errorf("%w: reading rows: %w", ptree.ErrCorrupt, err)
		}
		if n == 0 {
			return fmt.Errorf("%w: reader made no progress", ptree.ErrCorrupt)
		}
	}
}

func (a *assembler) assembleRow(row parquet.Row) ([]any, error) {
	for c := range a.cols {
		a.cols[c] = a.cols[c][:0]
	}
	for _, v := range row {
		c := v.Column()
		if c < 0 || c >= len(a.cols) {
			return nil, fmt.Errorf("%w: value of unknown column %d", ptree.ErrCorrupt, c)
		}
		a.cols[c] = append(a.cols[c], v)
	}
	a.pos = a.pos[:0]
	for range a.cols {
		a.pos = append(a.pos, 0)
	}
	out := make([]any, len(a.tree.Children))
	for i, c := range a.tree.Children {
		v, err := a.read(c)
		if err != nil {
			return nil, err
		}
		out[i] = v
	}
	for c := range a.cols {
		if a.pos[c] != len(a.cols[c]) {
			return nil, fmt.Errorf("%w: column %d has %d values in a row, %d used", ptree.ErrCorrupt, c, len(a.cols[c]), a.pos[c])
		}
	}
	return out, nil
}

// peek returns the next value of leaf column c.
func (a *assembler) peek(c int) (parquet.Value, error) {
	if a.pos[c] >= len(a.cols[c]) {
		return parquet.Value{}, fmt.Errorf("%w: column %d ran out of values", ptree.ErrCorrupt, c)
	}
	return a.cols[c][a.pos[c]], nil
}

// skip consumes the one value that each leaf under t holds when t (or an
// ancestor) is null or empty.
func (a *assembler) skip(t *ptree.Node) {
	for _, c := range t.Leaves {
		a.pos[c]++
	}
}

// read assembles the value of node t from the current position.
func (a *assembler) read(t *ptree.Node) (any, error) {
	first := t.Leaves[0]
	v, err := a.peek(first)
	if err != nil {
		return nil, err
	}
	if v.DefinitionLevel() < t.Def {
		if !t.Nullable {
			return nil, fmt.Errorf("%w: null in required column %s", ptree.ErrCorrupt, t.Path)
		}
		a.skip(t)
		return nil, nil
	}
	switch t.Kind {
	case ptree.KindLeaf:
		a.pos[first]++
		return leafRead(t, v)
	case ptree.KindStruct:
		fields := make([]any, len(t.Children))
		for i, c := range t.Children {
			if fields[i], err = a.read(c); err != nil {
				return nil, err
			}
		}
		return fields, nil
	case ptree.KindList:
		if v.DefinitionLevel() < t.ElemDef {
			a.skip(t)
			return []any{}, nil
		}
		var elems []any
		for {
			e, err := a.read(t.Children[0])
			if err != nil {
				return nil, err
			}
			elems = append(elems, e)
			if !a.more(first, t.ElemRep) {
				return elems, nil
			}
		}
	case ptree.KindMap:
		if v.DefinitionLevel() < t.ElemDef {
			a.skip(t)
			return []schema.MapEntry{}, nil
		}
		var entries []schema.MapEntry
		for {
			k, err := a.read(t.Children[0])
			if err != nil {
				return nil, err
			}
			if k == nil {
				return nil, fmt.Errorf("%w: null key in map %s", ptree.ErrCorrupt, t.Path)
			}
			val, err := a.read(t.Children[1])
			if err != nil {
				return nil, err
			}
			entries = append(entries, schema.MapEntry{Key: k, Value: val})
			if !a.more(first, t.ElemRep) {
				return entries, nil
			}
		}
	}
	return nil, fmt.Errorf("%w: unknown node kind", ptree.ErrCorrupt)
}

// more reports whether the next value of column c continues the repeated
// group at repetition level rep.
func (a *assembler) more(c, rep int) bool {
	if a.pos[c] >= len(a.cols[c]) {
		return false
	}
	return a.cols[c][a.pos[c]].RepetitionLevel() >= rep
}

const julianUnixEpoch = 2440588

// leafRead converts a non-null Parquet value to the row representation.
func leafRead(t *ptree.Node, v parquet.Value) (any, error) {
	switch t.Conv {
	case ptree.ConvBool:
		return v.Boolean(), nil
	case ptree.ConvInt8:
		return int8(v.Int32()), nil
	case ptree.ConvInt16:
		return int16(v.Int32()), nil
	case ptree.ConvInt32:
		return v.Int32(), nil
	case ptree.ConvInt64:
		return v.Int64(), nil
	case ptree.ConvUint8:
		return int16(uint8(v.Uint32())), nil
	case ptree.ConvUint16:
		return int32(uint16(v.Uint32())), nil
	case ptree.ConvUint32:
		return int64(v.Uint32()), nil
	case ptree.ConvUint64:
		return schema.Decimal{Unscaled: new(big.Int).SetUint64(v.Uint64()), Scale: 0}, nil
	case ptree.ConvFloat:
		return v.Float(), nil
	case ptree.ConvDouble:
		return v.Double(), nil
	case ptree.ConvString:
		return string(v.ByteArray()), nil
	case ptree.ConvBinary:
		return bytes.Clone(v.ByteArray()), nil
	case ptree.ConvDate:
		return schema.Date(v.Int32()), nil
	case ptree.ConvTimestampMillis:
		return time.UnixMilli(v.Int64()).UTC(), nil
	case ptree.ConvTimestampMicros:
		return time.UnixMicro(v.Int64()).UTC(), nil
	case ptree.ConvTimestampNanos:
		return time.Unix(0, v.Int64()).UTC(), nil
	case ptree.ConvInt96:
		i := v.Int96()
		nanos := int64(uint64(i[1])<<32 | uint64(i[0]))
		days := int64(i[2]) - julianUnixEpoch
		return time.Unix(days*86400, nanos).UTC(), nil
	case ptree.ConvDecimal32:
		return schema.Decimal{Unscaled: big.NewInt(int64(v.Int32())), Scale: t.Scale}, nil
	case ptree.ConvDecimal64:
		return schema.Decimal{Unscaled: big.NewInt(v.Int64()), Scale: t.Scale}, nil
	case ptree.ConvDecimalBytes:
		return schema.Decimal{Unscaled: ptree.FromTwosComplement(v.ByteArray()), Scale: t.Scale}, nil
	}
	return nil, fmt.Errorf("%w: column %s: unknown conversion", ptree.ErrCorrupt, t.Path)
}
