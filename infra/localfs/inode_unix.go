//go:build unix

package localfs

import (
	"io/fs"
	"syscall"
)

// inode returns the file's inode number (0 when unavailable).
func inode(fi fs.FileInfo) uint64 {
	if st, ok := fi.Sys().(*syscall.Stat_t); ok {
		return uint64(st.Ino)
	}
	return 0
}

// identity returns the device and inode of fi (ok false when unavailable):
// two directories with one identity are the same directory.
func identity(fi fs.FileInfo) (fileID, bool) {
	if st, ok := fi.Sys().(*syscall.Stat_t); ok {
		return fileID{dev: uint64(st.Dev), ino: uint64(st.Ino)}, true
	}
	return fileID{}, false
}
