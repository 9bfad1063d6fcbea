//go:build unix

package localfs

import (
	"io/fs"
	"os"
	"syscall"
)

// The opens of a store following links (a stream's source) hand the
// descriptor to os.NewFile in blocking mode rather than calling os.Open:
// os.Open would first try to register a regular file with the network
// poller (two fcntl calls to set non-blocking mode, an epoll_ctl that
// fails, two more to clear it), which is most of the system calls of
// opening a small file. They open relative to the listed root directory
// (listedDir) when there is one.

// openFD opens path read-only and returns its descriptor.
func openFD(path string) (int, error) {
	for {
		fd, err := syscall.Open(path, syscall.O_RDONLY|syscall.O_CLOEXEC, 0)
		if err == syscall.EINTR {
			continue
		}
		if err != nil {
			return -1, &fs.PathError{Op: "open", Path: path, Err: err}
		}
		return fd, nil
	}
}

// readSmall opens key of a store following links read-only and reads b
// with one read(2), without an *os.File (os.NewFile's fcntl, its
// finalizer) unless it is needed: when the read returned want bytes, the
// file is closed and f is nil (the close's error is err). Otherwise f is
// the file, open after the n bytes read, and rerr the read's error (nil
// at its end: a read of 0).
func (s *Store) readSmall(key string, b []byte, want int) (n int, f *os.File, rerr, err error) {
	fd, err := s.openSrcFD(key)
	if err != nil {
		return 0, nil, nil, err
	}
	for {
		n, rerr = syscall.Read(fd, b)
		if rerr != syscall.EINTR {
			break
		}
	}
	if n < 0 {
		n = 0
	}
	if rerr == nil && n == want {
		if err := syscall.Close(fd); err != nil {
			return n, nil, nil, &fs.PathError{Op: "close", Path: s.fullPath(key), Err: err}
		}
		return n, nil, nil, nil
	}
	if rerr != nil {
		rerr = &fs.PathError{Op: "read", Path: s.fullPath(key), Err: rerr}
	}
	return n, os.NewFile(uintptr(fd), s.fullPath(key)), rerr, nil
}
