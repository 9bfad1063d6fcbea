package csvfmt

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/tributary-io/tributary/core/formats/csvfmt/csvcol"
	"github.com/tributary-io/tributary/core/formats/csvfmt/csvopt"
	"github.com/tributary-io/tributary/core/formats/csvfmt/csvtok"
	"github.com/tributary-io/tributary/core/formats/fileformat"
	"github.com/tributary-io/tributary/core/schema"
)

// ErrHeaderMismatch is wrapped when enforceSchema is false and a file's
// header does not name the schema's columns in order (Spark's
// CSVHeaderChecker); the error names the file, the header and the schema.
var ErrHeaderMismatch = errors.New("CSV header does not conform to the schema")

// reader implements fileformat.RowReader for CSV.
type reader struct {
	ctx       context.Context
	file      string
	o         Options
	tk        *csvtok.Tokenizer
	s         *schema.StructType
	data      []int // schema indices of the data columns, in order
	rescueIdx int   // -1: rescue disabled
	corrupt   string
	corIdx    int // -1: no corrupt-record column
	foldMatch bool
	mode      fileformat.ParseMode
	badHook   func(fileformat.BadRecord)

	started  bool     // the header (or the first record) was seen
	colIdx   []int    // file column -> schema index; -1 unknown
	colName  []string // file column -> its name
	caseOnly []bool   // file column differs from a schema column only by case
	expect   int      // values a record should have

	rescue fileformat.Rescue
	stats  fileformat.ReadStats
	seenU  map[string]bool
	seenM  map[string]bool
	done   bool
	col    colState // ReadBatch

	// workers bounds the goroutines of a parallel read (0: GOMAXPROCS);
	// par is its state, once parDecided (colpar.go). lineBase is added to
	// the tokenizer's line numbers (the lines before the text it reads).
	workers    int
	lineSep    string
	par        *parRead
	parDecided bool
	lineBase   int64
	// fold is ReadOptions.Fold's (nil: none; fold.go).
	fold *foldRead
	// memo is shared by the batch's readers of the same options: the
	// last header's column map (headerMemo), and their tokenizers. Close
	// hands tk back to it when tk is still recycle, the tokenizer it gave
	// (a parallel read that took tk's input on clears recycle).
	memo    *csvopt.Memo
	recycle *csvtok.Tokenizer
}

// line is the number of the line the record read last starts on.
func (rd *reader) line() int64 { return rd.lineBase + rd.tk.Line() }

func open(ctx context.Context, r io.Reader, s *schema.StructType, opts fileformat.ReadOptions) (*reader, error) {
	if s == nil {
		return nil, fmt.Errorf("csvfmt: %s: %w: no schema", opts.FilePath, fileformat.ErrReadSchema)
	}
	mode, err := opts.Mode.Normalize()
	if err != nil {
		return nil, fmt.Errorf("csvfmt: %w", err)
	}
	co, memo, err := csvopt.ParseReused(opts.Options, opts.Reuse) // the batch's previous file's, when equal
	if err != nil {
		return nil, fmt.Errorf("csvfmt: %w", err)
	}
	o := Options{co}
	cs, err := decoder(opts.Text)
	if err != nil {
		return nil, fmt.Errorf("csvfmt: %w", err)
	}
	rd := &reader{
		ctx: ctx, file: opts.FilePath, o: o, s: s, rescueIdx: -1, corIdx: -1, mode: mode,
		corrupt: opts.CorruptRecordColumn, badHook: opts.BadRecords,
		seenU: map[string]bool{}, seenM: map[string]bool{},
		workers: opts.Workers, lineSep: opts.Text.LineSep, memo: memo,
	}
	if rd.corrupt == "" {
		rd.corrupt = fileformat.DefaultCorruptRecordColumn
	}
	if opts.RescuedDataColumn != "" {
		i := s.FieldIndex(opts.RescuedDataColumn)
		if i < 0 {
			return nil, fmt.Errorf("csvfmt: %s: %w: rescued data column %q is not in the schema %s",
				opts.FilePath, fileformat.ErrReadSchema, opts.RescuedDataColumn, s)
		}
		if s.Fields[i].Type != schema.String {
			return nil, fmt.Errorf("csvfmt: %s: %w: rescued data column %q is %s, want string",
				opts.FilePath, fileformat.ErrReadSchema, opts.RescuedDataColumn, s.Fields[i].Type)
		}
		rd.rescueIdx = i
	}
	if i := s.FieldIndex(rd.corrupt); i >= 0 && s.Fields[i].Type == schema.String && i != rd.rescueIdx {
		rd.corIdx = i
	}
	rd.data = make([]int, 0, len(s.Fields))
	for i, f := range s.Fields {
		if i == rd.rescueIdx || i == rd.corIdx {
			continue
		}
		switch f.Type.(type) {
		case *schema.StructType, *schema.ArrayType, *schema.MapType:
			return nil, fmt.Errorf("csvfmt: %s: %w: column %s is %s: CSV holds no nested values", opts.FilePath, fileformat.ErrReadSchema, f.Name, schema.DDLType(f.Type))
		}
		rd.data = append(rd.data, i)
	}
	rd.foldMatch = opts.CaseInsensitive || rd.rescueIdx < 0
	rd.tk = memo.Tokenizer(&rd.o.Options, opts.Text.LineSep, cs.NewReader(r))
	rd.recycle = rd.tk
	if opts.Fold != nil {
		if rd.fold, err = newFold(opts.Fold, &rd.o, opts.Text); err != nil {
			return nil, err
		}
	}
	return rd, nil
}

// Stats reports what was read so far.
func (rd *reader) Stats() fileformat.ReadStats {
	return rd.stats.Clone()
}

// Close ends the read; it does not close the source reader.
func (rd *reader) Close() error {
	if rd.par != nil {
		rd.par.stop()
	}
	rd.done = true
	if rd.tk != nil && rd.tk == rd.recycle { // never read in parallel: startPar clears recycle
		rd.memo.Recycle(rd.tk)
		rd.tk, rd.recycle = nil, nil
	}
	return nil
}

// header maps the file's columns to the schema from its header row; the
// map is left in the options' memo, and taken from it by the next file
// of the batch with the same header (csvcol.HeaderMap).
func (rd *reader) header() error {
	tk := rd.tk
	key := csvcol.HeaderKey{Schema: rd.s, Rescue: rd.rescueIdx, Corrupt: rd.corIdx, Fold: rd.foldMatch}
	m, _ := rd.memo.Load().(*csvcol.HeaderMap)
	if !m.Fits(key, tk.Len(), tk.Bytes) {
		raw := make([]string, tk.Len())
		for i := range tk.Len() {
			raw[i] = tk.Value(i)
		}
		want := make([]string, 0, len(rd.data))
		for _, di := range rd.data {
			want = append(want, rd.s.Fields[di].Name)
		}
		var msg string
		if m, msg = csvcol.MapHeader(key, raw, rd.o.NullValue, want, rd.data); msg != "" && !rd.o.EnforceSchema {
			return fmt.Errorf("csvfmt: %s: %w (enforceSchema=false): %s; header: %s; schema: %s",
				rd.file, ErrHeaderMismatch, msg, strings.Join(m.Names, ", "), strings.Join(want, ", "))
		}
		rd.memo.Store(m)
	}
	rd.expect = len(m.Names)
	rd.colName, rd.colIdx, rd.caseOnly = m.Names, m.Idx, m.CaseOnly
	return nil
}

// column returns file column i's schema index and name, extending the map
// for a headerless file's extra columns (_c<i>).
func (rd *reader) column(i int) (int, string, bool) {
	for len(rd.colIdx) <= i {
		k := len(rd.colIdx)
		rd.colIdx = append(rd.colIdx, csvcol.DataAt(rd.data, k))
		rd.colName = append(rd.colName, "_c"+strconv.Itoa(k))
		rd.caseOnly = append(rd.caseOnly, false)
	}
	return rd.colIdx[i], rd.colName[i], rd.caseOnly[i]
}

// Next returns the next row, or io.EOF.
func (rd *reader) Next() ([]any, error) {
	for {
		if err := rd.advance(); err != nil {
			return nil, err
		}
		if err := rd.foldRecord(false); err != nil {
			return nil, err
		}
		row, reason := rd.record()
		if err := rd.plain(reason); err != nil {
			return nil, err
		}
		keep, err := rd.decide(row, reason)
		if err != nil {
			return nil, err
		}
		if keep {
			return row, nil
		}
	}
}

// advance reads the next record into the tokenizer, taking the header
// first; io.EOF at the end.
func (rd *reader) advance() error {
	tk := rd.tk
	for {
		if rd.done {
			return io.EOF
		}
		err := tk.Next()
		if errors.Is(err, io.EOF) {
			rd.done = true
			return io.EOF
		}
		if err != nil {
			return fmt.Errorf("csvfmt: read %s line %d: %w", rd.file, rd.line(), err)
		}
		if tk.Line()%1024 == 0 {
			if err := rd.ctx.Err(); err != nil {
				return err
			}
		}
		if !rd.started {
			rd.started = true
			if rd.fold != nil {
				if err := rd.fold.start(tk, rd.file); err != nil {
					return err
				}
			}
			if rd.o.Header {
				if err := rd.header(); err != nil {
					return err
				}
				continue
			}
			rd.expect = len(rd.data)
		}
		return nil
	}
}

// decide counts the record row made by record and applies the parse mode
// to a bad one (reason not empty): keep is false when the row is dropped.
func (rd *reader) decide(row []any, reason string) (keep bool, err error) {
	tk := rd.tk
	if reason == "" {
		rd.stats.RowsRead++
		return true, nil
	}
	rd.stats.CorruptRecords++
	text := strings.ToValidUTF8(string(tk.Raw()), "\uFFFD")
	switch {
	case rd.badHook != nil:
		rd.badHook(fileformat.BadRecord{Line: rd.line(), Record: text, Reason: reason})
		return false, nil
	case rd.mode == fileformat.FailFast:
		return false, fmt.Errorf("csvfmt: %s line %d: %w: %s", rd.file, rd.line(), fileformat.ErrMalformedRecord, reason)
	case rd.mode == fileformat.DropMalformed:
		return false, nil
	}
	switch {
	case rd.corIdx >= 0:
		row[rd.corIdx] = text
	case rd.rescueIdx >= 0:
		if row[rd.rescueIdx] == nil {
			rd.stats.RowsRescued++
		}
		rd.rescue.AddString([]string{rd.corrupt}, text)
		row[rd.rescueIdx], _ = rd.rescue.JSON(rd.file)
	case strings.HasPrefix(reason, "malformed"):
		rd.stats.ValuesDropped++
	}
	rd.stats.RowsRead++
	return true, nil
}

// record converts the tokenizer's record into a row; reason is not empty
// when it is a bad record (malformed, or with rescue disabled a value that
// does not fit its column). The row then holds what could be read (all
// nulls for a record the parser refused).
func (rd *reader) record() ([]any, string) {
	tk := rd.tk
	row := make([]any, len(rd.s.Fields))
	rd.rescue.Reset()
	if tk.Bad() != "" {
		return row, "malformed CSV record: " + tk.Bad()
	}
	reason := ""
	n := tk.Len()
	if n < rd.expect || (n > rd.expect && (rd.o.Header || rd.rescueIdx < 0)) {
		reason = fmt.Sprintf("malformed CSV record: %d values, want %d", n, rd.expect)
		n = min(n, rd.expect)
	}
	for i := 0; i < n; i++ {
		idx, name, caseOnly := rd.column(i)
		s, null := tokenValue(tk, i, &rd.o)
		if idx < 0 {
			if !caseOnly {
				fileformat.NotePath(rd.seenU, &rd.stats.UnknownFields, name)
			}
			switch {
			case null:
			case rd.rescueIdx < 0:
				rd.stats.ValuesDropped++
			default:
				rd.rescue.AddString([]string{name}, s)
			}
			continue
		}
		if null {
			continue
		}
		v, ok := rd.o.convert(rd.s.Fields[idx].Type, s)
		if !ok {
			fileformat.NotePath(rd.seenM, &rd.stats.MismatchedFields, rd.s.Fields[idx].Name)
			if rd.rescueIdx >= 0 {
				rd.rescue.AddString([]string{name}, s)
			} else {
				rd.stats.ValuesDropped++
				if reason == "" {
					if len(s) > 64 {
						s = strings.ToValidUTF8(s[:64], "") + "..."
					}
					reason = fmt.Sprintf("value %s of column %s does not fit %s", s, rd.s.Fields[idx].Name, schema.DDLType(rd.s.Fields[idx].Type))
				}
			}
		}
		row[idx] = v
	}
	if rd.rescueIdx >= 0 {
		if js, ok := rd.rescue.JSON(rd.file); ok {
			row[rd.rescueIdx] = js
			rd.stats.RowsRescued++
		}
	}
	return row, reason
}
