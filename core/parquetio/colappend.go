package parquetio

import (
	"fmt"

	"github.com/tributary-io/tributary/core/schema"
)

// Append appends the finished rows of src (a batch of the same schema) to
// b's finished rows, copying the bytes of src's string and binary values:
// src may be reset or reused afterwards, and the reader that filled it
// closed. Writing b then writes the rows Writer.WriteBatch would have
// written from b and src one after the other (a writer gathers the small
// batches of many small files into one, so that each write is worth its
// fixed cost). b must have no row being built.
func (b *ColumnBatch) Append(src *ColumnBatch) error {
	if !b.sameSchema(src) {
		return fmt.Errorf("%w: column batch of schema %s appended to one of schema %s", ErrInvalidValue, src.tree.Type, b.tree.Type)
	}
	if b.cur != 0 || src.cur != 0 {
		return fmt.Errorf("%w: appending column batches with a row being built", ErrInvalidValue)
	}
	if err := src.cb.check(); err != nil {
		return err
	}
	if src.cb.rows == 0 {
		return nil
	}
	for c := range b.cb.cols {
		if n := int64(len(b.cb.cols[c].Data)) + int64(len(src.cb.cols[c].Data)); n > maxColumnBytes {
			return fmt.Errorf("%w: leaf column %d would hold %d bytes of values in one batch, more than %d", ErrInvalidValue, c, n, maxColumnBytes)
		}
	}
	for c := range src.cb.cols {
		base := int32(b.cb.cols[c].AppendFrom(&src.cb.cols[c]))
		if b.cb.rep[c] {
			for _, e := range src.cb.ends[c][:src.cb.rows] {
				b.cb.ends[c] = append(b.cb.ends[c], base+e)
			}
		}
	}
	b.cb.sizes = append(b.cb.sizes, src.cb.sizes[:src.cb.rows]...)
	b.cb.rows += src.cb.rows
	b.bytes += src.bytes
	b.Rescued += src.Rescued
	return nil
}

// sameSchema reports whether o's rows have b's schema: batches made for
// one *schema.StructType (the usual case: every file of a stream) need no
// structural comparison.
func (b *ColumnBatch) sameSchema(o *ColumnBatch) bool {
	if b.schema == o.schema || b.tree == o.tree {
		return true
	}
	return len(b.tree.Leaves) == len(o.tree.Leaves) && schema.EqualType(b.tree.Type, o.tree.Type)
}
