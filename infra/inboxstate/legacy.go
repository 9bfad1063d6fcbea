package inboxstate

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/aws/smithy-go"
)

// migrateLegacy moves the pending files of a state table written before
// the inbox (items without batch in the table's "pending" index) into one
// inbox object, once per stream and process, so that no file registered
// by an older release is stranded. A table without that index (created by
// this release) costs one failed Query per cold start, nothing else. A
// file moved twice (two processes racing) is harmless: its claim decides.
func (s *Store) migrateLegacy(ctx context.Context, stream string) error {
	s.mu.Lock()
	done := s.migrated[stream]
	s.mu.Unlock()
	if done {
		return nil
	}
	es, err := s.items.LegacyPending(ctx, stream)
	if isNoIndex(err) {
		es, err = nil, nil
	}
	if err != nil {
		return fmt.Errorf("inboxstate: reading the table's legacy pending index: %w", err)
	}
	if len(es) > 0 {
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
			return fmt.Errorf("inboxstate: moving %d pending files of the table's legacy index to %s: %w", len(es), key, err)
		}
		s.logger.InfoContext(ctx, "inboxstate: moved the pending files of the state table's legacy index to the checkpoint's inbox",
			"stream", stream, "files", len(es), "key", key)
	}
	s.mu.Lock()
	s.migrated[stream] = true
	s.mu.Unlock()
	return nil
}

// isNoIndex reports whether err says the table has no such index.
func isNoIndex(err error) bool {
	var api smithy.APIError
	if err == nil || !errors.As(err, &api) {
		return false
	}
	switch api.ErrorCode() {
	case "ResourceNotFoundException":
		return true
	case "ValidationException":
		return strings.Contains(strings.ToLower(api.ErrorMessage()), "index")
	}
	return false
}
