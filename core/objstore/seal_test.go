package objstore_test

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"strings"
	"testing"

	"github.com/tributary-io/tributary/core/objstore"
	"github.com/tributary-io/tributary/core/objstore/memstore"
)

type sealed struct {
	Batch int      `json:"batch"`
	Files []string `json:"files"`
}

func TestSealJSON(t *testing.T) {
	ctx := t.Context()
	s := memstore.New()
	read := func(ctx context.Context) (*sealed, bool, error) {
		rc, err := s.Get(ctx, "plan.json")
		if errors.Is(err, objstore.ErrNotFound) {
			return nil, false, nil
		}
		if err != nil {
			return nil, false, err
		}
		defer rc.Close()
		var v sealed
		if err := json.NewDecoder(rc).Decode(&v); err != nil {
			return nil, false, err
		}
		return &v, true, nil
	}
	first := &sealed{Batch: 1, Files: []string{"a"}}
	got, err := objstore.SealJSON(ctx, s, "plan.json", first, read)
	if err != nil || got != first {
		t.Fatalf("first seal: %v, %v; want the value itself", got, err)
	}
	// A later writer gets the first writer's value, not its own.
	got, err = objstore.SealJSON(ctx, s, "plan.json", &sealed{Batch: 1, Files: []string{"b"}}, read)
	if err != nil || len(got.Files) != 1 || got.Files[0] != "a" {
		t.Fatalf("second seal: %+v, %v; want the first writer's files [a]", got, err)
	}
	// An object that exists but cannot be read back is an error naming the key.
	_, err = objstore.SealJSON(ctx, s, "plan.json", first, func(context.Context) (*sealed, bool, error) { return nil, false, nil })
	if err == nil || !strings.Contains(err.Error(), "plan.json") {
		t.Fatalf("unreadable sealed object: %v", err)
	}
	rc, err := s.Get(ctx, "plan.json")
	if err != nil {
		t.Fatal(err)
	}
	defer rc.Close()
	raw, _ := io.ReadAll(rc)
	if string(raw) != `{"batch":1,"files":["a"]}` {
		t.Fatalf("stored %s", raw)
	}
}

func TestReadAll(t *testing.T) {
	ctx := t.Context()
	s := memstore.New()
	if data, found, err := objstore.ReadAll(ctx, s, "missing"); err != nil || found || data != nil {
		t.Fatalf("missing object: %q, %v, %v; want not found, no error", data, found, err)
	}
	if err := s.PutIfAbsent(ctx, "k", strings.NewReader("v1")); err != nil {
		t.Fatal(err)
	}
	if data, found, err := objstore.ReadAll(ctx, s, "k"); err != nil || !found || string(data) != "v1" {
		t.Fatalf("object k: %q, %v, %v; want v1", data, found, err)
	}
}
