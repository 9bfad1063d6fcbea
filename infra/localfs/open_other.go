//go:build !unix

package localfs

import "os"

// openFile opens path read-only (os.Open).
func openFile(path string) (*os.File, error) { return os.Open(path) }

// readSmall opens path read-only and reads b with one read: when it
// returned want bytes, the file is closed and f is nil (the close's error
// is err). Otherwise f is the file, open after the n bytes read, and rerr
// the read's error (nil at its end).
func readSmall(path string, b []byte, want int) (n int, f *os.File, rerr, err error) {
	if f, err = openFile(path); err != nil {
		return 0, nil, nil, err
	}
	return readFirst(f, b, want)
}
