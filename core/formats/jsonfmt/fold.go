package jsonfmt

import (
	"errors"
	"fmt"
	"io"

	"github.com/tributary-io/tributary/core/formats/fileformat"
	"github.com/tributary-io/tributary/core/parquetio"
)

// foldLine is batchLine for a reader that checks its records against a
// one-pass inference (ReadOptions.Fold, jsoninfer.Checker): the line
// must keep every inferred type and be read plainly.
// A record the fast decoder took is not scanned when the checker proves
// that such records keep the types (foldSkip: jsoninfer.Checker.Proves).
func (rd *reader) foldLine(line []byte, b *parquetio.ColumnBatch) error {
	tries, misses := rd.fastTries, rd.fastMisses
	if err := rd.batchRecord(line, b); err != nil {
		return err
	}
	if fast := rd.fastTries > tries && rd.fastMisses == misses; !fast || !rd.foldSkip {
		if err := rd.keeps(line); err != nil {
			return err
		}
	}
	return rd.plain()
}

// foldNext is Next for a reader that checks its records (keeps, in next).
func (rd *reader) foldNext() ([]any, error) {
	row, err := rd.next()
	if err == nil || errors.Is(err, io.EOF) {
		if perr := rd.plain(); perr != nil {
			return nil, perr
		}
	}
	return row, err
}

// keeps is nil when line (number rd.lineNo) keeps the inference's types.
func (rd *reader) keeps(line []byte) error {
	if rd.fold.Keeps(line) {
		return nil
	}
	return fmt.Errorf("jsonfmt: %s line %d: %w: an inferred type would change", rd.file, rd.lineNo, fileformat.ErrFoldAbandoned)
}

// plain is nil while every record was read plainly (ReadStats.Plain).
func (rd *reader) plain() error {
	if rd.stats.Plain() {
		return nil
	}
	return fmt.Errorf("jsonfmt: %s line %d: %w: a record not read plainly", rd.file, rd.lineNo, fileformat.ErrFoldAbandoned)
}
