package pagew

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"io"

	"github.com/parquet-go/parquet-go"
	"github.com/parquet-go/parquet-go/encoding/thrift"
	"github.com/parquet-go/parquet-go/format"
)

// magic starts and ends a Parquet file.
const magic = "PAR1"

// File lays out a Parquet file as parquet-go's Writer does: the magic, the
// row groups (per column chunk its dictionary page, then its data pages),
// then the column indexes and the offset indexes of every chunk, and the
// footer.
type File struct {
	w     io.Writer
	off   int64
	meta  format.FileMetaData
	cis   [][]*format.ColumnIndex
	ois   [][]format.OffsetIndex
	proto thrift.CompactProtocol
}

// Template returns the footer parquet-go writes for a file of schema s
// without rows, with the writer options given (created_by, key/value
// metadata): the schema elements, column orders and the rest of the
// footer that does not depend on the rows.
func Template(s *parquet.Schema, opts ...parquet.WriterOption) (format.FileMetaData, error) {
	var md format.FileMetaData
	var buf bytes.Buffer
	pw := parquet.NewWriter(&buf, append([]parquet.WriterOption{s}, opts...)...)
	if err := pw.Close(); err != nil {
		return md, fmt.Errorf("pagew: writing the footer template: %w", err)
	}
	b := buf.Bytes()
	n := len(b)
	if n < 12 || string(b[n-4:]) != magic {
		return md, fmt.Errorf("pagew: footer template: no Parquet magic")
	}
	flen := int(binary.LittleEndian.Uint32(b[n-8:]))
	if flen <= 0 || flen > n-8 {
		return md, fmt.Errorf("pagew: footer template: bad footer length %d", flen)
	}
	if err := thrift.Unmarshal(new(thrift.CompactProtocol), b[n-8-flen:n-8], &md); err != nil {
		return md, fmt.Errorf("pagew: footer template: %w", err)
	}
	return md, nil
}

// NewFile returns a File written to w with the footer template meta.
func NewFile(w io.Writer, meta format.FileMetaData) *File {
	meta.RowGroups, meta.NumRows = nil, 0
	return &File{w: w, meta: meta}
}

func (f *File) write(b []byte) error {
	n, err := f.w.Write(b)
	f.off += int64(n)
	return err
}

func (f *File) start() error {
	if f.off == 0 {
		return f.write([]byte(magic))
	}
	return nil
}

// WriteRowGroup lays out the flushed column chunks of cols (every leaf
// column, in schema order) as the next row group. ready, when not nil, is
// called before chunk i is laid out and returns once column i is flushed
// (the columns may still be flushing on other goroutines: each chunk is
// written as soon as it is ready); its error stops the row group.
func (f *File) WriteRowGroup(cols []*Column, ready func(i int) error) error {
	if len(cols) == 0 {
		return nil
	}
	if err := f.start(); err != nil {
		return err
	}
	if ready == nil {
		ready = func(int) error { return nil }
	}
	if err := ready(0); err != nil {
		return err
	}
	rows := cols[0].chunkRows
	rg := format.RowGroup{NumRows: rows, FileOffset: f.off, Ordinal: int16(len(f.meta.RowGroups))}
	cis := make([]*format.ColumnIndex, len(cols))
	ois := make([]format.OffsetIndex, len(cols))
	for i, c := range cols {
		if err := ready(i); err != nil {
			return err
		}
		if c.chunkRows != rows {
			return fmt.Errorf("pagew: column %s holds %d rows, column %s %d", c.o.Path, c.chunkRows, cols[0].o.Path, rows)
		}
		ch, err := c.writeTo(f.w, f.off)
		f.off += ch.raw
		if err != nil {
			return fmt.Errorf("pagew: writing column chunk %s: %w", c.o.Path, err)
		}
		rg.Columns = append(rg.Columns, ch.cc)
		rg.TotalByteSize += ch.cc.MetaData.TotalUncompressedSize
		rg.TotalCompressedSize += ch.cc.MetaData.TotalCompressedSize
		cis[i], ois[i] = ch.ci, ch.oi
	}
	f.meta.RowGroups = append(f.meta.RowGroups, rg)
	f.meta.NumRows += rows
	f.cis = append(f.cis, cis)
	f.ois = append(f.ois, ois)
	return nil
}

// Close writes the page indexes and the footer.
func (f *File) Close() error {
	if err := f.start(); err != nil {
		return err
	}
	for i := range f.meta.RowGroups {
		for j := range f.meta.RowGroups[i].Columns {
			ci := f.cis[i][j]
			if ci == nil {
				continue
			}
			b, err := thrift.Marshal(&f.proto, ci)
			if err != nil {
				return fmt.Errorf("pagew: encoding a column index: %w", err)
			}
			cc := &f.meta.RowGroups[i].Columns[j]
			cc.ColumnIndexOffset, cc.ColumnIndexLength = f.off, int32(len(b))
			if err := f.write(b); err != nil {
				return err
			}
		}
	}
	for i := range f.meta.RowGroups {
		for j := range f.meta.RowGroups[i].Columns {
			b, err := thrift.Marshal(&f.proto, &f.ois[i][j])
			if err != nil {
				return fmt.Errorf("pagew: encoding an offset index: %w", err)
			}
			cc := &f.meta.RowGroups[i].Columns[j]
			cc.OffsetIndexOffset, cc.OffsetIndexLength = f.off, int32(len(b))
			if err := f.write(b); err != nil {
				return err
			}
		}
	}
	footer, err := thrift.Marshal(&f.proto, &f.meta)
	if err != nil {
		return fmt.Errorf("pagew: encoding the footer: %w", err)
	}
	footer = binary.LittleEndian.AppendUint32(footer, uint32(len(footer)))
	return f.write(append(footer, magic...))
}
