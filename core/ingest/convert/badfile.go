package convert

import (
	"errors"
	"fmt"
)

// Contract errors of input files that cannot be read. A batch that fails
// with one of them commits nothing; its sealed plan is replayed by the
// next run.
var (
	// ErrCorruptFile: an input file's content cannot be read (bad or
	// truncated compression, unreadable content, a read error that repeats
	// at the same point) and ignoreCorruptFiles is false.
	ErrCorruptFile = errors.New("input file is corrupt")
	// ErrMissingFile: an input file was deleted after it was discovered
	// and ignoreMissingFiles is false.
	ErrMissingFile = errors.New("input file is missing")
	// ErrUnstableRead: reading an input file failed several times, at
	// different points each time (a storage or network problem, not the
	// file's content); the next run tries again.
	ErrUnstableRead = errors.New("input file could not be read reliably")
)

// Fault classifies why an input file could not be (fully) read.
type Fault int

const (
	// FaultCorrupt: the content (or a read error) stopped the read.
	FaultCorrupt Fault = iota + 1
	// FaultMissing: the file is gone since its discovery.
	FaultMissing
	// FaultUnusable: the file cannot be placed in the table (its path
	// lacks a partition value); it is always skipped with the reason.
	FaultUnusable
)

// FileError is why one input file could not be (fully) read.
type FileError struct {
	// Path is the source key.
	Path string
	// Fault classifies the failure.
	Fault Fault
	// Rows and Rescued count the rows read (and written) before the
	// failure; Unknown lists the new columns among them.
	Rows, Rescued int64
	Unknown       []string
	// Err is the failure.
	Err error
}

// Error names the file and the failure.
func (f *FileError) Error() string { return f.Path + ": " + f.Err.Error() }

// Unwrap returns the failure.
func (f *FileError) Unwrap() error { return f.Err }

// Reason is why the file was skipped, as the state, the commit and
// badRecordsPath record it.
func (f *FileError) Reason() string {
	switch {
	case f.Fault == FaultMissing:
		return "deleted since it was discovered"
	case f.Fault == FaultCorrupt && f.Rows > 0:
		return fmt.Sprintf("corrupt: %v; the %d rows read before the corruption were kept", f.Err, f.Rows)
	case f.Fault == FaultCorrupt:
		return fmt.Sprintf("corrupt: %v", f.Err)
	}
	return f.Err.Error()
}

// Policy is what a stream does about input files that cannot be read.
type Policy struct {
	// IgnoreMissing skips a file deleted since its discovery
	// (ignoreMissingFiles, or badRecordsPath) instead of failing the batch.
	IgnoreMissing bool
	// IgnoreCorrupt skips the rest of an unreadable file, keeping the rows
	// read before the failure (ignoreCorruptFiles, or badRecordsPath).
	IgnoreCorrupt bool
	// Name names a source key in errors as users know it (nil: the key).
	Name func(key string) string
}

func (p Policy) name(key string) string {
	if p.Name == nil {
		return key
	}
	return p.Name(key)
}

// tolerated reports whether the stream skips such a file (keeping what was
// read) rather than failing its batch.
func (p Policy) tolerated(fe *FileError) bool {
	switch fe.Fault {
	case FaultMissing:
		return p.IgnoreMissing
	case FaultCorrupt:
		return p.IgnoreCorrupt
	}
	return true
}

// failure is the error that fails a batch (or an inference) because
// of fe, naming the file, the reason and the way out.
func (p Policy) failure(fe *FileError) error {
	name := p.name(fe.Path)
	if fe.Fault == FaultMissing {
		return fmt.Errorf("%w: %s was deleted since it was discovered (set ignoreMissingFiles=true to skip it, or badRecordsPath to record it)", ErrMissingFile, name)
	}
	return fmt.Errorf("%w: %s: %v (after %d rows; set ignoreCorruptFiles=true to skip it keeping the rows read before the corruption, or badRecordsPath to record it)", ErrCorruptFile, name, fe.Err, fe.Rows)
}

// MaxFileReads bounds how often one batch attempt reads a file whose read
// keeps failing at different points.
const MaxFileReads = 3

// readCut is where a failed read of a file stopped.
type readCut struct {
	rows int64
	msg  string
}

// Verdict is what a batch does about a file that could not be read.
type Verdict int

const (
	// RetryBatch: drop the attempt's output and write the batch again (the
	// failure may be the network's: a cut S3 body looks like a truncated
	// file).
	RetryBatch Verdict = iota + 1
	// KeepRead: skip the rest of the file, keeping the rows read before
	// the failure (Spark's ignoreCorruptFiles), and record it skipped.
	KeepRead
	// FailBatch: fail the batch; nothing of it commits.
	FailBatch
)

// Failures remembers, across the attempts of one batch, where the
// reads of each failing file stopped.
type Failures map[string][]readCut

// Judge decides what the batch does about fe. A read that fails is
// retried; a failure that repeats at the same point (same rows read, same
// error) is the content's, so the cut point a batch keeps is the same on
// every replay; failures that keep moving are the storage's, and fail the
// batch after MaxFileReads reads.
func (p Policy) Judge(rf Failures, fe *FileError) (Verdict, error) {
	if fe.Fault != FaultCorrupt {
		if p.tolerated(fe) {
			return KeepRead, nil
		}
		return FailBatch, p.failure(fe)
	}
	cut := readCut{rows: fe.Rows, msg: fe.Err.Error()}
	prev := rf[fe.Path]
	rf[fe.Path] = append(prev, cut)
	switch {
	case len(prev) == 0:
		return RetryBatch, nil
	case prev[len(prev)-1] == cut:
		if p.tolerated(fe) {
			return KeepRead, nil
		}
		return FailBatch, p.failure(fe)
	case len(prev)+1 >= MaxFileReads:
		return FailBatch, fmt.Errorf("%w: %s: %d reads failed at different points (last after %d rows: %v); the next run tries again",
			ErrUnstableRead, p.name(fe.Path), len(prev)+1, fe.Rows, fe.Err)
	}
	return RetryBatch, nil
}
