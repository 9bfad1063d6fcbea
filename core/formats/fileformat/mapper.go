package fileformat

import (
	"bytes"
	"errors"
	"io"
	"sync/atomic"
)

// SmallInPlace is implemented by formats whose readers should be given a
// small file the engine read whole as a Mapper over the bytes it holds, so
// that they read them in place instead of copying them through Read into
// a read buffer of their own (CSV, whose tokenizer allocated 64 KiB a
// file). Other formats are given such a file as a plain reader.
type SmallInPlace interface {
	// ReadsSmallInPlace reports whether the format's readers take small
	// files read whole in place.
	ReadsSmallInPlace() bool
}

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

// Sized is a source that knows its length in bytes, such as a file read
// in place: a reader in place sizes its windows by it, so that the end of
// a file does not take a window (and a mapping) of its own. Size returns
// a negative number when the length is not known after all (a wrapper
// over a source that is not Sized).
type Sized interface {
	Size() int64
}

// SizeOf is r's Size when r is Sized, else -1.
func SizeOf(r any) int64 {
	if s, ok := r.(Sized); ok {
		return s.Size()
	}
	return -1
}

// Window is how many bytes a reader in place maps at off when it wants a
// window of n bytes of a source of length size (negative: not known): n,
// or, when the rest of the source fits in n and a quarter of n, that rest
// and one byte more, so that one window reaches the end (its being
// shorter than asked tells the end, as for any window) instead of the
// rest taking a window, and a mapping, of its own: a 1 MB file slightly
// over 1 MiB is mapped once.
func Window(size, off int64, n int) int {
	if rest := size - off; rest >= 0 && rest <= int64(n)+int64(n/4) {
		return int(rest) + 1
	}
	return n
}

// SharedMapper is a Mapper that also maps windows of their own
// (MapShared), for a reader that hands parts of the file to several
// goroutines.
//
// MapShared returns the same bytes as MapAt, in a window of their own
// that several goroutines may read at once and that stays valid until its
// unmap is called, whatever MapAt, MapShared, Unmap or Close calls come
// in between: a parallel reader hands slices of it to workers and unmaps
// it when the last of them is done. unmap is called once (from any
// goroutine, unsynchronised with the reader's other calls); a window
// whose unmap is never called stays mapped, so the caller bounds the
// windows alive (resident memory grows by them). Like MapAt, a first
// MapShared fails if the file was read from already; a window past the
// end (nil bytes) has an unmap that does nothing. MapAt and Unmap leave
// shared windows alone.
type SharedMapper interface {
	Mapper
	MapShared(off int64, n int) (b []byte, unmap func(), err error)
}

// SharedWindow counts the holds on a window MapShared mapped: the
// reader's, while it cuts blocks from it, and one for each block cut from
// it that its worker has not released yet. The last release unmaps the
// window, from whichever goroutine makes it.
type SharedWindow struct {
	refs  atomic.Int32
	unmap func()
}

// NewSharedWindow returns the window unmap unmaps, held once (by the
// reader that mapped it).
func NewSharedWindow(unmap func()) *SharedWindow {
	w := &SharedWindow{unmap: unmap}
	w.refs.Store(1)
	return w
}

// Hold adds a hold (a block cut from the window); Release drops it.
func (w *SharedWindow) Hold() { w.refs.Add(1) }

// Release drops one hold; the last one unmaps the window.
func (w *SharedWindow) Release() {
	if w.refs.Add(-1) == 0 {
		w.unmap()
	}
}

// BytesMapper is a Mapper over bytes held in memory (a small file read
// whole, a block of lines cut from a text): its windows are slices of the
// bytes, so a reader that reads a Mapper in place (CSV's tokenizer) reads
// them where they are instead of copying them into a read buffer of its
// own. Read, Seek and the rest of bytes.Reader's methods read the same
// bytes, from one read position. The contract is Mapper's: MapAt returns
// the bytes [off, off+n) (fewer at their end, none past it), valid as
// long as the bytes are (until the next Reset; the caller owns them and
// must not change them while they are read); the first MapAt since Reset
// fails once Read has read (the read position is not at the start), later
// ones do not; Unmap does nothing. The zero BytesMapper holds nothing;
// Reset gives it bytes.
type BytesMapper struct {
	bytes.Reader
	data   []byte
	mapped bool // MapAt returned a window since Reset
}

// NewBytesMapper returns a BytesMapper over b.
func NewBytesMapper(b []byte) *BytesMapper {
	m := new(BytesMapper)
	m.Reset(b)
	return m
}

// Reset makes m read b from its start, not mapped yet.
func (m *BytesMapper) Reset(b []byte) {
	m.Reader.Reset(b)
	m.data, m.mapped = b, false
}

// MapAt returns the bytes [off, off+n) (fewer at their end, none past
// it); the first call since Reset fails (ErrReadAlready) once Read has
// read.
func (m *BytesMapper) MapAt(off int64, n int) ([]byte, error) {
	if !m.mapped {
		if int64(m.Len()) != m.Size() {
			return nil, ErrReadAlready
		}
		m.mapped = true
	}
	end := int64(len(m.data))
	lo := min(max(off, 0), end)
	hi := lo + min(int64(max(n, 0)), end-lo)
	return m.data[lo:hi:hi], nil
}

// Unmap does nothing: the bytes are the caller's.
func (m *BytesMapper) Unmap() {}

// ErrReadAlready is BytesMapper.MapAt's error when its first call comes
// after Read has read.
var ErrReadAlready = errors.New("fileformat: mapping bytes read from already")

// mapperNop is a Mapper with a no-op Close: Decompress of a plain file
// whose reader is a Mapper.
type mapperNop struct{ Mapper }

// Close does nothing (closing does not close the file).
func (mapperNop) Close() error { return nil }

// Size is the file's (Sized; -1 when it is not).
func (m mapperNop) Size() int64 { return SizeOf(m.Mapper) }

// sharedMapperNop is mapperNop for a SharedMapper.
type sharedMapperNop struct{ SharedMapper }

// Close does nothing (closing does not close the file).
func (sharedMapperNop) Close() error { return nil }

// Size is the file's (Sized; -1 when it is not).
func (m sharedMapperNop) Size() int64 { return SizeOf(m.SharedMapper) }
