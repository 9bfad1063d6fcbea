//go:build !unix

package localfs

import "io/fs"

// inode returns 0: this platform exposes no inode number through os.Stat, so
// ETags rely on size and the nanosecond modification time alone.
func inode(fs.FileInfo) uint64 { return 0 }

// identity reports no identity: this platform exposes none through
// os.Stat, so List detects directory loops by real path instead.
func identity(fs.FileInfo) (fileID, bool) { return fileID{}, false }
