//go:build !(linux || darwin || freebsd || netbsd || openbsd || dragonfly)

package boltstate

import "os"

// sharedBetweenTx is false here: the writer keeps bbolt's own lock for as
// long as the store is open, so a reader waits for the run to end.
const sharedBetweenTx = false

// tryLock is a no-op: bbolt's own lock (held while the store is open)
// serialises the processes.
func tryLock(*os.File, bool) (bool, error) { return true, nil }

// unlock is a no-op (see tryLock).
func unlock(*os.File) error { return nil }
