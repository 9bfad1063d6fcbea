package schemalog

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/tributary-io/tributary/core/objstore/memstore"
	"github.com/tributary-io/tributary/core/schema"
)

func TestHistory(t *testing.T) {
	ctx := context.Background()
	st := memstore.New()
	if s, v, err := Latest(ctx, st); s != nil || v != -1 || err != nil {
		t.Fatalf("Latest of no history = %v, %d, %v", s, v, err)
	}
	one := &schema.StructType{Fields: []schema.Field{{Name: "a", Type: schema.Long, Nullable: true}}}
	two := &schema.StructType{Fields: []schema.Field{{Name: "a", Type: schema.Long, Nullable: true}, {Name: "b", Type: schema.String, Nullable: true}}}
	for _, step := range []struct {
		v          int
		save, want *schema.StructType
	}{
		{0, one, one},
		{1, two, two},
		{1, one, two}, // version 1 exists: the stored schema wins
		{0, two, one}, // version 0's, not the newest version's
	} {
		got, err := Save(ctx, st, step.v, step.save)
		if err != nil || !schema.EqualType(got, step.want) {
			t.Fatalf("Save(%d) = %v, %v; want %v", step.v, got, err, step.want)
		}
	}
	if s, v, err := Latest(ctx, st); err != nil || v != 1 || !schema.EqualType(s, two) {
		t.Fatalf("Latest = %v, %d, %v", s, v, err)
	}
	if err := st.Put(ctx, Key(2), strings.NewReader("{not json")); err != nil {
		t.Fatal(err)
	}
	_, _, err := Latest(ctx, st)
	var ce *CorruptError
	if !errors.As(err, &ce) || ce.Key != "_schemas/2" {
		t.Fatalf("Latest of a corrupt version = %v, want a CorruptError for _schemas/2", err)
	}
}

func TestRead(t *testing.T) {
	ctx := context.Background()
	st := memstore.New()
	one := &schema.StructType{Fields: []schema.Field{{Name: "a", Type: schema.Long, Nullable: true}}}
	if _, err := Save(ctx, st, 0, one); err != nil {
		t.Fatal(err)
	}
	if got, found, err := Read(ctx, st, 0); err != nil || !found || !schema.EqualType(got, one) {
		t.Fatalf("Read(0) = %v, %v, %v", got, found, err)
	}
	if got, found, err := Read(ctx, st, 1); err != nil || found || got != nil {
		t.Fatalf("Read(1) of a missing version = %v, %v, %v", got, found, err)
	}
	if err := st.Put(ctx, Key(2), strings.NewReader(`{"version":2,"schema":"not a schema"`)); err != nil {
		t.Fatal(err)
	}
	var ce *CorruptError
	if _, _, err := Read(ctx, st, 2); !errors.As(err, &ce) || ce.Key != Key(2) {
		t.Fatalf("Read of a corrupt version: %v, want a CorruptError naming %s", err, Key(2))
	}
}
