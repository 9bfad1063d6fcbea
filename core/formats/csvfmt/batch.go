package csvfmt

import (
	"errors"
	"fmt"
	"unsafe"

	"github.com/tributary-io/tributary/core/formats/csvfmt/csvcol"
	"github.com/tributary-io/tributary/core/parquetio"
)

// ReadBatch reads Next's records: a plainly good one (values one to one
// onto schema columns, all fitting) goes into the batch through csvcol,
// any other through record and decide as in Next, then csvcol.AppendRow.

// colState is the reader's columnar state.
type colState struct {
	decided, ok bool
	plan        *csvcol.Plan
	// src[f] is the file column of schema field f (-1: none); srcOK is
	// false when a file column is unknown or maps twice.
	src     []int
	srcOK   bool
	vals    []csvcol.Value
	anySize bool // tests: read small files in batches too
}

// BatchReadable reports whether ReadBatch reads this file: every column
// of its schema is a nullable primitive or decimal.
func (rd *reader) BatchReadable() bool {
	if !rd.col.decided {
		rd.col.decided = true
		rd.col.ok = csvcol.Batchable(rd.s) && !rd.small()
	}
	return rd.col.ok
}

// ReadBatch reads records into b (made for the reader's schema) until b
// holds maxRows rows or maxBytes bytes, or the file ends (io.EOF, with the
// rows read before it in b). On an error, the rows read before the failing
// record are in b. It may be called only when BatchReadable is true, and
// not mixed with Next.
func (rd *reader) ReadBatch(b *parquetio.ColumnBatch, maxRows int, maxBytes int64) error {
	if !rd.BatchReadable() {
		return errors.New("csvfmt: schema not readable into column batches")
	}
	if len(b.Root().Children) != len(rd.s.Fields) {
		return errors.New("csvfmt: column batch of another schema")
	}
	if rd.col.plan == nil {
		p, err := csvcol.NewPlan(rd.s, csvcol.Conv{Double: rd.o.double, Timestamp: rd.o.timestampMicros, Other: rd.o.convert})
		if err != nil {
			return fmt.Errorf("csvfmt: %s: %w", rd.file, err)
		}
		rd.col.plan = p
		rd.col.vals = make([]csvcol.Value, len(rd.s.Fields))
	}
	if !rd.parDecided && !rd.started {
		rd.parDecided = true
		if err := rd.startPar(); err != nil {
			return err
		}
	}
	if rd.par != nil {
		return rd.readPar(b, maxRows, maxBytes)
	}
	for b.Rows() < maxRows && b.Bytes() < maxBytes {
		if err := rd.advance(); err != nil {
			return err
		}
		if rd.plainRecord() {
			ok, err := rd.col.plan.Append(b, rd.col.vals)
			if err != nil {
				return fmt.Errorf("csvfmt: %s line %d: %w", rd.file, rd.line(), err)
			}
			if ok {
				rd.stats.RowsRead++
				if err := rd.foldRecord(true); err != nil {
					return err
				}
				continue
			}
		}
		if err := rd.foldRecord(false); err != nil {
			return err
		}
		row, reason := rd.record()
		if err := rd.plain(reason); err != nil {
			return err
		}
		keep, err := rd.decide(row, reason)
		if err != nil {
			return err
		}
		if !keep {
			continue
		}
		if err := csvcol.AppendRow(b, row, rd.rescueIdx); err != nil {
			return fmt.Errorf("csvfmt: %s line %d: %w", rd.file, rd.line(), err)
		}
	}
	return nil
}

// plainRecord reports whether the tokenizer's record is well formed with
// its values mapping one to one onto known schema columns; it then fills
// col.vals (schema order) with them as record would read them.
func (rd *reader) plainRecord() bool {
	tk := rd.tk
	if tk.Bad() != "" || tk.Len() != rd.expect {
		return false
	}
	if rd.col.src == nil {
		rd.col.src = make([]int, len(rd.s.Fields))
		for f := range rd.col.src {
			rd.col.src[f] = -1
		}
		rd.col.srcOK = true
		for i := 0; i < rd.expect; i++ {
			idx, _, _ := rd.column(i)
			if idx < 0 || rd.col.src[idx] >= 0 {
				rd.col.srcOK = false
				break
			}
			rd.col.src[idx] = i
		}
	}
	if !rd.col.srcOK {
		return false
	}
	// tokenView's values, as bytes (views), in one loop over the tokens.
	toks, text := tk.Tokens()
	vals := rd.col.vals
	for f, i := range rd.col.src {
		v := csvcol.Value{Null: true}
		if i >= 0 {
			if s, null := valueOf(toks[i], text, &rd.o); !null {
				v = csvcol.Value{B: unsafe.Slice(unsafe.StringData(s), len(s))}
			}
		}
		vals[f] = v
	}
	return true
}

// small reports whether the whole file is in the tokenizer's first read
// buffer (64 KiB): such a file is read in rows, cheaper than setting up a
// column batch for a few records.
func (rd *reader) small() bool {
	if rd.col.anySize || rd.tk.Mapped() {
		// A file read in place is 256 KiB or more.
		return false
	}
	whole, br := csvcol.Whole(rd.tk.Buffered())
	rd.tk.SetBuffered(br)
	return whole
}
