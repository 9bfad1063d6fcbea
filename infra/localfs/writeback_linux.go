package localfs

import (
	"os"

	"golang.org/x/sys/unix"
)

// startWriteback starts the disk writes of n bytes of f at off without
// waiting for them (sync_file_range SYNC_FILE_RANGE_WRITE). A failure is
// ignored: it is only a head start for the fsync, which reports errors.
func startWriteback(f *os.File, off, n int64) {
	_ = unix.SyncFileRange(int(f.Fd()), off, n, unix.SYNC_FILE_RANGE_WRITE)
}
