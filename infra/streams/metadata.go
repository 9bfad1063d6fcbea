package streams

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/google/uuid"

	"github.com/tributary-io/tributary/core/objstore"
)

// MetadataKey is the checkpoint object that names the stream owning it.
const MetadataKey = "metadata"

// ErrForeignCheckpoint reports a checkpoint that belongs to another stream.
var ErrForeignCheckpoint = errors.New("checkpoint location belongs to another stream")

// Metadata is a stream's record in its checkpoint location, like the query
// id Spark keeps in checkpointLocation/metadata. It is written once, when
// the stream first starts.
type Metadata struct {
	// ID is the stream id.
	ID string `json:"id"`
	// StartedAt is the stream's first start (includeExistingFiles=false
	// ignores files older than it).
	StartedAt time.Time `json:"startedAt"`
	// Generated is true when ID was generated for this checkpoint (the
	// CLI without --stream), not chosen by the user.
	Generated bool `json:"generated,omitempty"`
}

// CheckpointMetadata returns the checkpoint's metadata, creating it for
// stream id (a new UUID when id is empty) on first use. A checkpoint created
// by a different stream id is refused (two streams never share one).
func CheckpointMetadata(ctx context.Context, cp objstore.Store, id string, now time.Time) (Metadata, error) {
	fresh := Metadata{ID: id, StartedAt: now.UTC()}
	if fresh.ID == "" {
		fresh.ID, fresh.Generated = uuid.NewString(), true
	}
	data, err := json.Marshal(fresh)
	if err != nil {
		return Metadata{}, err
	}
	err = cp.PutIfAbsent(ctx, MetadataKey, bytes.NewReader(data))
	if err == nil {
		return fresh, nil
	}
	if !errors.Is(err, objstore.ErrExists) {
		return Metadata{}, fmt.Errorf("writing checkpoint metadata: %w", err)
	}
	rc, err := cp.Get(ctx, MetadataKey)
	if err != nil {
		return Metadata{}, fmt.Errorf("reading checkpoint metadata: %w", err)
	}
	defer rc.Close()
	var m Metadata
	if err := json.NewDecoder(rc).Decode(&m); err != nil || m.ID == "" {
		return Metadata{}, fmt.Errorf("checkpoint metadata holds no stream id (%v)", err)
	}
	if id != "" && m.ID != id {
		return Metadata{}, fmt.Errorf("%w: it was created by stream %q, not %q", ErrForeignCheckpoint, m.ID, id)
	}
	return m, nil
}

// ReadCheckpointMetadata returns the checkpoint's metadata without creating
// it; ok is false when the checkpoint has none.
func ReadCheckpointMetadata(ctx context.Context, cp objstore.Store) (m Metadata, ok bool, err error) {
	rc, err := cp.Get(ctx, MetadataKey)
	if errors.Is(err, objstore.ErrNotFound) {
		return Metadata{}, false, nil
	}
	if err != nil {
		return Metadata{}, false, fmt.Errorf("reading checkpoint metadata: %w", err)
	}
	defer rc.Close()
	if err := json.NewDecoder(rc).Decode(&m); err != nil {
		return Metadata{}, false, fmt.Errorf("decoding checkpoint metadata: %w", err)
	}
	return m, true, nil
}
