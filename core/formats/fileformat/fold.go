package fileformat

import "errors"

// FoldInferrer is an Inferrer that the format's readers can check the
// records they read against (ReadOptions.Fold): a reader that reads a file
// to its end so proves that sampling the whole file into a fresh inferrer
// (Add) gives the schema this inferrer had sampled from a prefix of the
// file cut after a "\n" (Folds): the sample's fold goes on from the
// prefix's types and changes none. A batch whose schema is inferred from
// its own file then needs one pass over it instead of two.
type FoldInferrer interface {
	Inferrer
	// Folds reports whether readers may check records against this
	// inferrer, given its options: every record is sampled (not
	// samplingRatio), and a prefix of a file cut after a "\n" is a prefix
	// of its records.
	Folds() bool
}

// ErrFoldAbandoned is wrapped by a reader that checks its records
// (ReadOptions.Fold) when it meets one that the schema does not read
// plainly (a malformed record, a rescued value, a column the schema lacks,
// a value that does not fit its column) or that would change the
// inference's types: the schema it reads with may not be the one the
// whole file infers; the caller reads the file again with that one.
var ErrFoldAbandoned = errors.New("one-pass inference abandoned: the data does not fit the provisional schema")

// Plain reports whether st counts no bad record, rescued row, dropped
// value, unknown or mismatched field: every record counted was read
// plainly, as a reader that checks its records (ReadOptions.Fold)
// requires.
func (st *ReadStats) Plain() bool {
	return st.CorruptRecords == 0 && st.RowsRescued == 0 && st.ValuesDropped == 0 &&
		len(st.UnknownFields) == 0 && len(st.MismatchedFields) == 0
}
