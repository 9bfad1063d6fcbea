package inboxstate

import (
	"bytes"
	"context"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/tributary-io/tributary/core/objstore"
	"github.com/tributary-io/tributary/core/state"
)

// legacyPrefix holds one marker per stream whose table items were checked
// for pending files of an older release (migrateLegacy). The markers do
// not end in ".json", so they are never read as inbox objects.
const legacyPrefix = Prefix + "legacy/"

func legacyMarker(stream string) string {
	return legacyPrefix + hex.EncodeToString([]byte(stream)) + ".moved"
}

// migrateLegacy moves the pending files of a state table written before
// the inbox (items without batch and without skip reason, which releases
// with the table's "pending" index wrote at registration) into one inbox
// object, once per stream: a marker in the inbox says it was done. The
// check costs one GET of the marker per stream and process; the move, a
// strongly consistent Query of the stream's items filtered to pending
// ones (reads, no writes) and two PUTs, once. A file moved twice (two
// processes racing, or a crash before the marker) is harmless: its claim
// decides. Items that an older release registers after the move (a
// discovery function not yet updated) are found again by any later
// Register of the file (they are not known until claimed) — a stack
// update replaces every function at once.
func (s *Store) migrateLegacy(ctx context.Context, stream string) error {
	s.mu.Lock()
	done := s.migrated[stream]
	s.mu.Unlock()
	if done {
		return nil
	}
	marker := legacyMarker(stream)
	_, found, err := objstore.ReadAll(ctx, s.inbox, marker)
	if err != nil {
		return fmt.Errorf("inboxstate: reading %s: %w", marker, err)
	}
	if !found {
		var es []state.Entry
		for e, err := range s.items.Entries(ctx, stream, state.Pending) {
			if err != nil {
				return fmt.Errorf("inboxstate: looking for pending files of an older release: %w", err)
			}
			es = append(es, e)
		}
		if len(es) > 0 {
			if err := s.moveLegacy(ctx, stream, es); err != nil {
				return err
			}
		}
		if err := s.inbox.Put(ctx, marker, strings.NewReader(fmt.Sprintf("%d\n", len(es)))); err != nil {
			return fmt.Errorf("inboxstate: writing %s: %w", marker, err)
		}
	}
	s.mu.Lock()
	s.migrated[stream] = true
	s.mu.Unlock()
	return nil
}

// moveLegacy writes the legacy pending files es into one inbox object,
// each with its own discovery time.
func (s *Store) moveLegacy(ctx context.Context, stream string, es []state.Entry) error {
	obj := object{Stream: stream, DiscoveryNanos: s.discoveryTime()}
	for _, e := range es {
		f := inboxFile{Path: e.Path, Size: e.Size, ETag: e.ETag, DiscNanos: e.DiscoveryTime.UnixNano()}
		if !e.ModTime.IsZero() {
			f.ModNanos = e.ModTime.UnixNano()
		}
		obj.Files = append(obj.Files, f)
	}
	data, err := json.Marshal(obj)
	if err != nil {
		return fmt.Errorf("inboxstate: %w", err)
	}
	key := newKey(obj.DiscoveryNanos)
	if err := s.inbox.Put(ctx, key, bytes.NewReader(data)); err != nil {
		return fmt.Errorf("inboxstate: moving %d pending files of an older release to %s: %w", len(es), key, err)
	}
	s.logger.InfoContext(ctx, "inboxstate: moved the pending files an older release registered in the state table to the checkpoint's inbox",
		"stream", stream, "files", len(es), "key", key)
	return nil
}
