package fileformat

import "io"

// Mapper is an optional capability of a source file's reader (a local
// file large enough to pay for it): its bytes read in place, from a memory
// mapping, instead of copied into a buffer by read(2). A line reader maps
// a window at a time and hands out lines as slices of it, so the bytes
// are neither copied by the kernel nor counted twice in memory; resident
// memory grows by the window, not by the file (the mapped pages are the
// page cache's, and unmapping drops them from the process).
//
// MapAt returns the file's bytes [off, off+n) from its start — fewer at
// its end, none past it — read-only; they stay valid until the next MapAt,
// Unmap or Close. The first MapAt fails if the file was read from already;
// the caller then reads it with Read as usual. Seek places the next Read
// (a caller that stops mapping part way goes on with Read from there).
//
// A file truncated by another process while it is mapped makes a read of
// the lost pages fault (SIGBUS) instead of returning an error: source
// files are expected to be complete and unchanging once listed.
type Mapper interface {
	io.Reader
	io.Seeker
	MapAt(off int64, n int) ([]byte, error)
	Unmap()
}

// mapperNop is a Mapper with a no-op Close: Decompress of a plain file
// whose reader is a Mapper.
type mapperNop struct{ Mapper }

// Close does nothing (closing does not close the file).
func (mapperNop) Close() error { return nil }
