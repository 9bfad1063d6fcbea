//go:build !unix

package localfs

import "os"

// readSmall opens key of a store following links read-only and reads b
// with one read: when it returned want bytes, the file is closed and f is
// nil (the close's error is err). Otherwise f is the file, open after the
// n bytes read, and rerr the read's error (nil at its end).
func (s *Store) readSmall(key string, b []byte, want int) (n int, f *os.File, rerr, err error) {
	if f, err = s.openSrc(key); err != nil {
		return 0, nil, nil, err
	}
	return readFirst(f, b, want)
}
