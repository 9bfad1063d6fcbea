//go:build !unix

package localfs

import "os"

// listedDir is nothing here: a store following links opens its files by
// their full paths.
type listedDir struct{}

func (l *listedDir) begin()     {}
func (l *listedDir) end(string) {}
func (l *listedDir) close()     {}

// openSrc opens key of a store following links read-only.
func (s *Store) openSrc(key string) (*os.File, error) { return os.Open(s.fullPath(key)) }
