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
	for {
		fd, err := syscall.Open(path, syscall.O_RDONLY|syscall.O_CLOEXEC, 0)
		if err == syscall.EINTR {
			continue
		}
		if err != nil {
			return nil, &fs.PathError{Op: "open", Path: path, Err: err}
		}
		return os.NewFile(uintptr(fd), path), nil
	}
}
