//go:build !unix

package localfs

import "os"

// openFile opens path read-only (os.Open).
func openFile(path string) (*os.File, error) { return os.Open(path) }
