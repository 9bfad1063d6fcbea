package discovery

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/tributary-io/tributary/core/objstore"
)

// Incremental listing modes (cloudFiles.useIncrementalListing).
const (
	// IncrementalAuto lets Tributary decide. Its detection is conservative:
	// it never assumes lexically ordered keys, so auto lists fully.
	IncrementalAuto = "auto"
	// IncrementalOn lists only keys after the last key the previous listing
	// saw: for sources whose new keys sort after every existing one (dated
	// names). A file added under an earlier key is never discovered.
	IncrementalOn = "true"
	// IncrementalOff always lists the whole source.
	IncrementalOff = "false"
)

// CursorKey is the checkpoint object that records where the last listing
// ended.
const CursorKey = "listing.json"

// Cursor is the position of a stream's incremental listing.
type Cursor struct {
	// LastKey is the greatest source key (relative to the source location)
	// a completed listing has seen; "" before the first one.
	LastKey string `json:"lastKey"`
	// Pass is the listing pass a bounded run stopped before its end
	// (Registrar.Pass), resumed by the next one; nil when none is pending.
	Pass *Pass `json:"pass,omitempty"`
}

// ReadCursor returns the cursor stored in the checkpoint store (the zero
// Cursor when there is none).
func ReadCursor(ctx context.Context, cp objstore.Store) (Cursor, error) {
	rc, err := cp.Get(ctx, CursorKey)
	if errors.Is(err, objstore.ErrNotFound) {
		return Cursor{}, nil
	}
	if err != nil {
		return Cursor{}, fmt.Errorf("reading the listing cursor %s: %w", CursorKey, err)
	}
	defer rc.Close()
	b, err := io.ReadAll(rc)
	if err != nil {
		return Cursor{}, fmt.Errorf("reading the listing cursor %s: %w", CursorKey, err)
	}
	var c Cursor
	if err := json.Unmarshal(b, &c); err != nil {
		return Cursor{}, fmt.Errorf("listing cursor %s: %w", CursorKey, err)
	}
	return c, nil
}

// WriteCursor stores c in the checkpoint store.
func WriteCursor(ctx context.Context, cp objstore.Store, c Cursor) error {
	b, err := json.Marshal(c)
	if err != nil {
		return err
	}
	if err := cp.Put(ctx, CursorKey, strings.NewReader(string(b))); err != nil {
		return fmt.Errorf("writing the listing cursor %s: %w", CursorKey, err)
	}
	return nil
}

// openCursor returns the stored cursor, creating an empty one first when
// there is none: a put-if-absent, then a read only when the cursor exists.
// Unlike a read of a missing object it needs no s3:ListBucket on the
// checkpoint (without it S3 answers a missing key with 403, not 404).
func openCursor(ctx context.Context, cp objstore.Store) (Cursor, error) {
	err := cp.PutIfAbsent(ctx, CursorKey, strings.NewReader(`{"lastKey":""}`))
	switch {
	case err == nil:
		return Cursor{}, nil
	case errors.Is(err, objstore.ErrExists):
		return ReadCursor(ctx, cp)
	}
	return Cursor{}, fmt.Errorf("creating the listing cursor %s: %w", CursorKey, err)
}
