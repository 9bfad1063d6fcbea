package csvfmt

import (
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/tributary-io/tributary/core/formats/charset"
	"github.com/tributary-io/tributary/core/formats/csvfmt/csvcol"
	"github.com/tributary-io/tributary/core/formats/csvfmt/csvtok"
	"github.com/tributary-io/tributary/core/formats/fileformat"
	"github.com/tributary-io/tributary/core/schema"
)

// Folds reports whether readers may check records against in's schema
// (ReadOptions.Fold): its options are valid, it samples every record (no
// samplingRatio) and a record never spans a "\n" (no multiLine, no
// lineSep, UTF-8): a prefix of a file cut after a "\n" is a prefix of its
// records.
func (in *inferrer) Folds() bool {
	cs, _ := decoder(in.opts.Text)
	return in.optErr == nil && in.sampler == nil && !in.o.MultiLine && in.opts.Text.LineSep == "" && cs == charset.UTF8
}

// foldRead checks a reader's records against an inference (Add's fold
// from its types: no type may change), fed by the reader's tokenizer
// (which validates UTF-8: the values are those Add's repair gives).
type foldRead struct {
	in   *inferrer
	f    *folder
	skip []kind // folder.skip of the plain records (made once)
}

// newFold checks that in may fold the records of a reader of o and
// lineSep: the tokenizers and the values must be alike.
func newFold(inf fileformat.Inferrer, o *Options, text fileformat.TextOptions) (*foldRead, error) {
	in, ok := inf.(*inferrer)
	if !ok || !in.Folds() {
		return nil, fmt.Errorf("csvfmt: %w: the inferrer cannot fold", fileformat.ErrFoldAbandoned)
	}
	if *in.o.TokConfig(text.LineSep) != *o.TokConfig(text.LineSep) || in.opts.Text != text || in.o.Header != o.Header ||
		in.o.NullValue != o.NullValue || in.o.EmptyValue != o.EmptyValue {
		return nil, fmt.Errorf("csvfmt: %w: inference and read options differ", fileformat.ErrFoldAbandoned)
	}
	return &foldRead{in: in}, nil
}

// start takes the file's first record (tk's), as Add does: its columns
// (named by the header, or _c0, _c1, ...) must all be in's, whose types a
// folder of fr's own starts from. in is only read: workers share it.
func (fr *foldRead) start(tk *csvtok.Tokenizer, file string) error {
	names := fr.in.fileNames(tk)
	cols := make([]int, len(names))
	for i, name := range names {
		j, ok := fr.in.index[strings.ToLower(name)]
		if !ok {
			return fmt.Errorf("csvfmt: %s: %w: column %s", file, fileformat.ErrFoldAbandoned, name)
		}
		cols[i] = j
	}
	fr.f = fr.in.newFolder(cols, slices.Clone(fr.in.cols))
	return nil
}

// clone is fr for another reader of the same file (a worker's).
func (fr *foldRead) clone() *foldRead {
	if fr == nil || fr.f == nil {
		return fr
	}
	return &foldRead{in: fr.in, f: fr.in.newFolder(fr.f.cols, slices.Clone(fr.in.cols))}
}

// fileNames are the names of a file's columns, tk holding its first
// record: its header, or _c0, _c1, ... without one.
func (in *inferrer) fileNames(tk *csvtok.Tokenizer) []string {
	names := make([]string, tk.Len())
	if in.o.Header {
		raw := make([]string, tk.Len())
		for i := range tk.Len() {
			raw[i] = tk.Value(i)
		}
		return csvcol.SafeHeader(raw, in.o.NullValue)
	}
	for i := range names {
		names[i] = "_c" + strconv.Itoa(i)
	}
	return names
}

// fileFolder is the folder of a file whose first record is tk's: its
// columns (fileNames) added to in's.
func (in *inferrer) fileFolder(tk *csvtok.Tokenizer) *folder {
	names := in.fileNames(tk)
	cols := make([]int, len(names))
	for i, name := range names {
		cols[i] = in.column(name)
	}
	return in.newFolder(cols, in.cols)
}

// plain returns, for a reader that folds, ErrFoldAbandoned once a record
// was not read plainly (record's reason, or a value rescued, dropped,
// unknown or not fitting its column).
func (rd *reader) plain(reason string) error {
	st := &rd.stats
	if rd.fold == nil || (reason == "" && st.RowsRescued == 0 && st.ValuesDropped == 0 &&
		len(st.UnknownFields) == 0 && len(st.MismatchedFields) == 0) {
		return nil
	}
	return fmt.Errorf("csvfmt: %s line %d: %w", rd.file, rd.line(), fileformat.ErrFoldAbandoned)
}

// noKind marks a column of no kind in folder.skip.
const noKind kind = 255

// foldRecord folds the reader's record into its checking folder, and
// abandons when a type changes; plain: its values were converted
// to their columns' types (csvcol.Plan.Append took it). Then a value of
// an INT, BIGINT, DOUBLE, BOOLEAN or TIMESTAMP column whose inferred type
// is that type already keeps it, and is not folded again: Append's
// parsers take no value inferField widens from there (Java's integers,
// Double.parseDouble with nanValue and the infinities, true / false, the
// timestamp parsing both use; inferField takes a timestamp with no space
// around it only, so such a value is folded).
func (rd *reader) foldRecord(plain bool) error {
	if rd.fold == nil {
		return nil // inlined: no call per record without a check
	}
	return rd.checkRecord(plain)
}

// checkRecord is foldRecord's check.
func (rd *reader) checkRecord(plain bool) error {
	fr := rd.fold
	if plain && fr.skip == nil {
		fr.skip = make([]kind, rd.expect)
		for i := range fr.skip {
			fr.skip[i] = noKind
			if idx, _, _ := rd.column(i); idx >= 0 {
				switch rd.s.Fields[idx].Type {
				case schema.Integer:
					fr.skip[i] = kInt
				case schema.Long:
					fr.skip[i] = kLong
				case schema.Double:
					fr.skip[i] = kDouble
				case schema.Boolean:
					fr.skip[i] = kBool
				case schema.Timestamp:
					fr.skip[i] = kTimestamp
				}
			}
		}
	}
	if plain {
		fr.f.skip = fr.skip
	}
	if rd.tk.Bad() == "" && fr.f.infer {
		fr.f.fold(rd.tk) // a malformed record: plain abandons
	}
	fr.f.skip = nil
	if fr.f.changed {
		return fmt.Errorf("csvfmt: %s line %d: %w: a type widens", rd.file, rd.line(), fileformat.ErrFoldAbandoned)
	}
	return nil
}

// trimmed reports that s (not empty) has no white space around it: its
// first and last bytes are ASCII and not white space.
func trimmed(s string) bool {
	a, z := s[0], s[len(s)-1]
	return a > ' ' && a < 0x80 && z > ' ' && z < 0x80
}
