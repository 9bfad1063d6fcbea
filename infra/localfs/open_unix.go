//go:build unix

package localfs

import (
	"io/fs"
	"os"
	"syscall"
)

// openFile opens path read-only as os.Open does, but hands the
// descriptor to os.NewFile in blocking mode: os.Open would first try to
// register a regular file with the network poller (two fcntl calls to set
// non-blocking mode, an epoll_ctl that fails, two more to clear it), which
// is most of the system calls of opening a small file.
func openFile(path string) (*os.File, error) {
	fd, err := openFD(path)
	if err != nil {
		return nil, err
	}
	return os.NewFile(uintptr(fd), path), nil
}

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

// readSmall opens path read-only and reads b with one read(2), without
// an *os.File (os.NewFile's fcntl, its finalizer) unless it is needed:
// when the read returned want bytes, the file is closed and f is nil
// (the close's error is err). Otherwise f is the file, open after the n
// bytes read, and rerr the read's error (nil at its end: a read of 0).
func readSmall(path string, b []byte, want int) (n int, f *os.File, rerr, err error) {
	fd, err := openFD(path)
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
			return n, nil, nil, &fs.PathError{Op: "close", Path: path, Err: err}
		}
		return n, nil, nil, nil
	}
	if rerr != nil {
		rerr = &fs.PathError{Op: "read", Path: path, Err: rerr}
	}
	return n, os.NewFile(uintptr(fd), path), rerr, nil
}
