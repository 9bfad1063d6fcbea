package boltfile

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	bolt "go.etcd.io/bbolt"
)

// Verify takes a file bbolt wrote, and names what is wrong with an empty,
// a truncated and an overwritten one (boltstate's tests damage state
// files page by page, and fuzz them, through Open).
func TestVerify(t *testing.T) {
	path := filepath.Join(t.TempDir(), "state.db")
	db, err := bolt.Open(path, 0o600, nil)
	if err != nil {
		t.Fatal(err)
	}
	err = db.Update(func(tx *bolt.Tx) error {
		b, err := tx.CreateBucket([]byte("files"))
		if err != nil {
			return err
		}
		for i := range 2000 {
			if err := b.Put([]byte(strings.Repeat("k", i%50)+string(rune('a'+i%26))+string(rune(i))), bytes.Repeat([]byte("v"), 100)); err != nil {
				return err
			}
		}
		return nil
	})
	if cerr := db.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		t.Fatal(err)
	}
	whole, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	zeroed := bytes.Clone(whole)
	clear(zeroed[len(zeroed)/2:])
	for _, tc := range []struct {
		name      string
		data      []byte
		want      string // "" for none; else a part of Detail
		wantEmpty bool
	}{
		{"whole", whole, "", false},
		{"empty", nil, "empty", true},
		{"truncated", whole[:len(whole)/2], "truncated", false},
		{"half zeroed", zeroed, "page", false},
		{"not bbolt", bytes.Repeat([]byte("x"), 8192), "", false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := Verify(bytes.NewReader(tc.data), int64(len(tc.data)))
			switch {
			case tc.name == "whole":
				if c != nil {
					t.Fatalf("Verify of a whole file: %v", c)
				}
			case c == nil:
				t.Fatal("Verify found nothing wrong")
			case !strings.Contains(c.Detail, tc.want) || c.Empty != tc.wantEmpty || c.Error() != c.Detail:
				t.Fatalf("Verify = %+v, want a detail with %q, Empty %v", c, tc.want, tc.wantEmpty)
			}
		})
	}
}
