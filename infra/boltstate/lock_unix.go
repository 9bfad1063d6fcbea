//go:build linux || darwin || freebsd || netbsd || openbsd || dragonfly

package boltstate

import (
	"errors"
	"os"
	"syscall"
)

// sharedBetweenTx reports that this platform lets a writer release the state
// file's lock between transactions (flock can be dropped and taken again on
// the file descriptor bbolt keeps open).
const sharedBetweenTx = true

// tryLock takes the file's flock without waiting: exclusive or shared.
// It reports false when another open file description holds a conflicting
// lock.
func tryLock(f *os.File, exclusive bool) (bool, error) {
	how := syscall.LOCK_SH
	if exclusive {
		how = syscall.LOCK_EX
	}
	for {
		err := syscall.Flock(int(f.Fd()), how|syscall.LOCK_NB)
		switch {
		case err == nil:
			return true, nil
		case errors.Is(err, syscall.EWOULDBLOCK):
			return false, nil
		case errors.Is(err, syscall.EINTR):
			continue
		}
		return false, err
	}
}

// unlock releases the file's flock.
func unlock(f *os.File) error {
	return syscall.Flock(int(f.Fd()), syscall.LOCK_UN)
}
