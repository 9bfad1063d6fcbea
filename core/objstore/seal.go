package objstore

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
)

// SealJSON writes v as JSON at key unless an object is already there
// (PutIfAbsent), and returns the sealed value: v, or the value another
// writer sealed first, which read returns (ok false: it is not there). It
// is the first-writer-wins step of the exactly-once protocol: every caller
// goes on with the same value, whoever wrote it.
func SealJSON[T any](ctx context.Context, s Store, key string, v *T, read func(context.Context) (*T, bool, error)) (*T, error) {
	data, err := json.Marshal(v)
	if err != nil {
		return nil, err
	}
	return SealEncoded(ctx, s, key, v, data, read)
}

// SealEncoded is SealJSON with v's JSON encoding, data, made by the
// caller (an encoder that writes what json.Marshal writes, faster).
func SealEncoded[T any](ctx context.Context, s Store, key string, v *T, data []byte, read func(context.Context) (*T, bool, error)) (*T, error) {
	err := s.PutIfAbsent(ctx, key, bytes.NewReader(data))
	if errors.Is(err, ErrExists) {
		got, ok, rerr := read(ctx)
		if rerr != nil {
			return nil, rerr
		}
		if !ok {
			return nil, fmt.Errorf("%s exists but cannot be read", key)
		}
		return got, nil
	}
	if err != nil {
		return nil, fmt.Errorf("sealing %s: %w", key, err)
	}
	return v, nil
}

// ReadAll returns the content of the object at key; found is false (and
// err nil) when there is none. Errors are the store's, unwrapped, so that
// callers name the object in their own terms.
func ReadAll(ctx context.Context, s Store, key string) (data []byte, found bool, err error) {
	rc, err := s.Get(ctx, key)
	if errors.Is(err, ErrNotFound) {
		return nil, false, nil
	}
	if err != nil {
		return nil, false, err
	}
	defer rc.Close()
	if data, err = io.ReadAll(rc); err != nil {
		return nil, false, err
	}
	return data, true, nil
}
