package fileformat

import "errors"

// FoldInferrer is an Inferrer that the format's readers can fill while
// they read (ReadOptions.Fold): a file read whole by such a reader is
// sampled into it as Add would sample it (the same records, values and
// columns, in the same order), so that a batch whose schema is inferred
// from its own files needs one pass over them instead of two. Bytes are
// not counted (Sampled().Bytes): the caller, which reads files whole, has
// the budget.
type FoldInferrer interface {
	Inferrer
	// Folds reports whether readers may fold into this inferrer, given
	// its options (samplingRatio, say, samples records at random: no).
	Folds() bool
}

// ErrFoldAbandoned is wrapped by a reader that folds (ReadOptions.Fold)
// when it meets a record its schema does not read plainly: a malformed
// record, a rescued value, a column the schema lacks or a value that does
// not fit its column. A schema read so is not the one the fold infers;
// the caller reads the file again with the inferred one.
var ErrFoldAbandoned = errors.New("one-pass inference abandoned: the data does not fit the provisional schema")
