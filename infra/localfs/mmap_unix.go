//go:build unix

package localfs

import (
	"errors"
	"io"
	"os"
	"sync/atomic"

	"golang.org/x/sys/unix"
)

// mapMin is the size from which Get returns a file that can be read in
// place (mapFile): below it one read(2) costs less than mmap and munmap.
const mapMin = 256 << 10

// errReadAlready is MapAt's error for a file read from before.
var errReadAlready = errors.New("localfs: the file was read from already; read it on")

// mapFile is an object Get returns that can also be read in place
// (fileformat.Mapper): MapAt maps a window of the file read-only, and
// unmaps the one before. A 100 MB file read twice with read(2) into a
// 64 KiB buffer costs ~19 ms of copying per pass; in 1 MiB windows its
// page faults cost ~11 ms.
type mapFile struct {
	*os.File
	size    int64
	started bool   // MapAt was called (and the file was not read before)
	win     []byte // the mapping MapAt made last (page-aligned)
}

// newObjectFile returns f (of size bytes, regular) as Get returns it.
func newObjectFile(f *os.File, size int64) io.ReadCloser {
	if size < mapMin {
		return f
	}
	return &mapFile{File: f, size: size}
}

// Size is the file's length (fileformat.Sized).
func (m *mapFile) Size() int64 { return m.size }

// MapAt returns the file's bytes [off, off+n) (fewer at its end),
// read-only, valid until the next MapAt, Unmap or Close.
func (m *mapFile) MapAt(off int64, n int) ([]byte, error) {
	if err := m.start(); err != nil {
		return nil, err
	}
	m.Unmap()
	win, b, err := m.mmap(off, n)
	m.win = win
	return b, err
}

// MapShared returns the file's bytes [off, off+n) (fewer at its end),
// read-only, in a mapping of their own valid until unmap is called
// (fileformat.Mapper): Close leaves it mapped.
func (m *mapFile) MapShared(off int64, n int) ([]byte, func(), error) {
	if err := m.start(); err != nil {
		return nil, nil, err
	}
	win, b, err := m.mmap(off, n)
	if win == nil {
		return b, func() {}, err
	}
	var done atomic.Bool
	return b, func() {
		if !done.Swap(true) {
			_ = unix.Munmap(win)
		}
	}, nil
}

// start refuses to map a file read from before the first mapping.
func (m *mapFile) start() error {
	if !m.started {
		if pos, err := m.File.Seek(0, io.SeekCurrent); err != nil || pos != 0 {
			return errReadAlready
		}
		m.started = true
	}
	return nil
}

// mmap maps the pages holding the file's bytes [off, off+n) (fewer at its
// end): the mapping (nil: none) and those bytes in it.
func (m *mapFile) mmap(off int64, n int) (win, b []byte, err error) {
	if off < 0 || n < 0 {
		return nil, nil, errors.New("localfs: negative offset or length to map")
	}
	if off >= m.size || n == 0 {
		return nil, nil, nil
	}
	end := min(m.size, off+int64(n))
	page := int64(os.Getpagesize())
	start := off &^ (page - 1)
	win, err = unix.Mmap(int(m.File.Fd()), start, int(end-start), unix.PROT_READ, unix.MAP_SHARED)
	if err != nil {
		return nil, nil, &os.PathError{Op: "mmap", Path: m.File.Name(), Err: err}
	}
	return win, win[off-start:], nil
}

// Unmap releases the window MapAt returned last.
func (m *mapFile) Unmap() {
	if m.win != nil {
		_ = unix.Munmap(m.win)
		m.win = nil
	}
}

// Close unmaps the window and closes the file.
func (m *mapFile) Close() error {
	m.Unmap()
	return m.File.Close()
}
