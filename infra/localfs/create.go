package localfs

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path"

	"github.com/tributary-io/tributary/core/objstore"
)

var _ objstore.Creator = (*Store)(nil)

// errFinished is what a pending object's Write and Commit return after
// Commit or Abort.
var errFinished = errors.New("the object is already committed or aborted")

// Create starts writing the object at key (objstore.Creator): the bytes go
// to a temporary file in the key's directory, which Commit syncs
// (WithSync), stamps and renames over the key as Put does, so that the
// object is published without the copy Put makes of its reader. The key's
// directory is created now; an Abort removes it again if it is left empty.
// The temporary file's modification time moves with every write, so
// RemoveStaleTemp leaves a live writer's file alone.
func (s *Store) Create(ctx context.Context, key string) (objstore.PendingObject, error) {
	if err := checkKey(key); err != nil {
		return nil, err
	}
	if err := ctx.Err(); err != nil {
		return nil, fmt.Errorf("localfs: create %q: %w", key, err)
	}
	f, tmp, err := s.createTemp(key)
	if err != nil {
		return nil, fmt.Errorf("localfs: create %q: %w", key, err)
	}
	p := &pending{s: s, key: key, tmp: tmp, f: f, w: f}
	if s.sync {
		p.wb = &writeback{f: f}
		p.w = p.wb
	}
	return p, nil
}

// pending is an object being written (Create).
type pending struct {
	s    *Store
	key  string
	tmp  string // the temporary file's root-relative name
	f    *os.File
	w    io.Writer  // f, or its writeback (WithSync)
	wb   *writeback // WithSync: stopped before f is synced or closed
	done bool       // committed or aborted
}

// Write appends p to the object.
func (p *pending) Write(b []byte) (int, error) {
	if p.done {
		return 0, fmt.Errorf("localfs: write %q: %w", p.key, errFinished)
	}
	n, err := p.w.Write(b)
	if err != nil {
		return n, fmt.Errorf("localfs: write %q: %w", p.key, err)
	}
	return n, nil
}

// Commit syncs the temporary file (WithSync) and renames it over the key,
// then syncs the directory, as Put does. On failure the temporary file is
// removed and the key keeps its previous object, if any.
func (p *pending) Commit(ctx context.Context) error {
	if p.done {
		return fmt.Errorf("localfs: commit %q: %w", p.key, errFinished)
	}
	p.done = true
	p.stopWriteback()
	if err := ctx.Err(); err != nil {
		p.f.Close()
		p.s.root.Remove(p.tmp)
		return fmt.Errorf("localfs: commit %q: %w", p.key, err)
	}
	if err := p.s.finishTemp(p.f, p.tmp); err != nil {
		return fmt.Errorf("localfs: commit %q: %w", p.key, err)
	}
	if err := p.s.publish(ctx, p.tmp, p.key); err != nil {
		return fmt.Errorf("localfs: commit %q: %w", p.key, err)
	}
	return nil
}

// Abort removes the temporary file (and the key's directory if that leaves
// it empty); it does nothing after Commit or a first Abort.
func (p *pending) Abort() {
	if p.done {
		return
	}
	p.done = true
	p.stopWriteback()
	p.f.Close()
	p.s.root.Remove(p.tmp)
	p.s.pruneDirs(path.Dir(p.key))
}

// stopWriteback ends the writeback's goroutine (WithSync) before the file
// is synced or closed.
func (p *pending) stopWriteback() {
	if p.wb != nil {
		p.wb.stop()
	}
}
