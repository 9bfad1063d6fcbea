// Package schemalog provides a stream's schema history: the versions of
// its schema kept under cloudFiles.schemaLocation (_schemas/<n>, Delta
// JSON), the newest one read and a new one written first-writer-wins.
package schemalog

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/tributary-io/tributary/core/objstore"
	"github.com/tributary-io/tributary/core/schema"
)

// CorruptError is a schema history version that cannot be decoded.
type CorruptError struct {
	// Key is the version's key.
	Key string
	// Err is the decoding error.
	Err error
}

// Error implements error.
func (e *CorruptError) Error() string {
	return fmt.Sprintf("the schema history %s is corrupt (%v)", e.Key, e.Err)
}

// Unwrap returns the decoding error.
func (e *CorruptError) Unwrap() error { return e.Err }

// Record is one version of the schema history
// (cloudFiles.schemaLocation/_schemas/<n>).
type Record struct {
	// Version is the history version.
	Version int `json:"version"`
	// Schema is the schema in Delta JSON.
	Schema json.RawMessage `json:"schema"`
}

// Prefix is the key prefix of the schema history's versions.
const Prefix = "_schemas/"

// Key is the key of version v of the schema history.
func Key(v int) string { return fmt.Sprintf("%s%d", Prefix, v) }

// Latest returns the newest schema in the history and its version, or
// nil and -1; a version that cannot be decoded is a *CorruptError.
func Latest(ctx context.Context, st objstore.Store) (*schema.StructType, int, error) {
	best := -1
	for info, err := range st.List(ctx, objstore.ListOptions{Prefix: Prefix}) {
		if err != nil {
			return nil, 0, fmt.Errorf("listing schema history: %w", err)
		}
		v, err := strconv.Atoi(strings.TrimPrefix(info.Key, Prefix))
		if err == nil && v > best {
			best = v
		}
	}
	if best < 0 {
		return nil, -1, nil
	}
	s, _, err := Read(ctx, st, best)
	if err != nil {
		return nil, 0, err
	}
	return s, best, nil
}

// Read returns version v of the history; found is false when there is no
// such version. A version that cannot be decoded is a *CorruptError.
func Read(ctx context.Context, st objstore.Store, v int) (s *schema.StructType, found bool, err error) {
	data, found, err := objstore.ReadAll(ctx, st, Key(v))
	if err != nil {
		return nil, false, fmt.Errorf("reading schema history %s: %w", Key(v), err)
	}
	if !found {
		return nil, false, nil
	}
	var rec Record
	if err := json.Unmarshal(data, &rec); err != nil {
		return nil, false, &CorruptError{Key: Key(v), Err: err}
	}
	if s, err = schema.ParseDeltaJSON(string(rec.Schema)); err != nil {
		return nil, false, &CorruptError{Key: Key(v), Err: err}
	}
	return s, true, nil
}

// Save writes version v of the history unless it exists, and returns
// the schema that is stored at v (another committer may have won).
func Save(ctx context.Context, st objstore.Store, v int, s *schema.StructType) (*schema.StructType, error) {
	js, err := schema.MarshalDeltaJSON(s)
	if err != nil {
		return nil, err
	}
	data, err := json.Marshal(Record{Version: v, Schema: json.RawMessage(js)})
	if err != nil {
		return nil, err
	}
	err = st.PutIfAbsent(ctx, Key(v), bytes.NewReader(data))
	if errors.Is(err, objstore.ErrExists) {
		got, found, err := Read(ctx, st, v)
		if err == nil && !found {
			err = fmt.Errorf("schema history %s exists but cannot be read", Key(v))
		}
		return got, err
	}
	if err != nil {
		return nil, fmt.Errorf("writing schema history %s: %w", Key(v), err)
	}
	return s, nil
}
