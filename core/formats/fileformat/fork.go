package fileformat

// ForkInferrer is implemented by inferrers whose sampling of one file does
// not depend on the files sampled before it, so that files may be sampled
// apart, on several goroutines, and the results folded in file order:
// Spark's type merge is associative and the first-seen spelling of a field
// is the earliest file's. The caller enforces the sample limits when it
// folds: a fork's files are merged only if the inferrer is not Full before
// any of them, as Add would have refused the file then (FullWith).
//
// Fork and Merge are called by the goroutine that owns the inferrer; a
// fork is used by one goroutine at a time (not necessarily the owner's).
//
// A format whose files depend on the ones before (CSV's header, say, when
// later files must be read with the first file's columns) implements it by
// returning nil from Fork until that state is known, then forks that
// carry it: the caller samples a file into the inferrer itself whenever
// Fork returns nil.
type ForkInferrer interface {
	Inferrer
	// Fork returns an empty inferrer with this one's options (and any
	// state files depend on), or nil when files cannot be sampled apart
	// now. A fork reads each file it is given whole, whatever the byte
	// budget: the budget is the caller's when it merges.
	Fork() Inferrer
	// Merge folds f, a Fork of this inferrer that sampled the files
	// following those sampled so far, into it: Schema and Sampled are then
	// what sampling those files into this inferrer would give. f is not
	// used afterwards.
	Merge(f Inferrer)
	// FullWith reports whether Full would report true after n more bytes
	// were sampled (FullWith(0) is Full): the caller of a fork that sampled
	// several files learns whether the budget ends before its last one.
	FullWith(n int64) bool
}
