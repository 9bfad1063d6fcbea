package maptest

import (
	"bytes"
	"testing"

	"github.com/tributary-io/tributary/core/formats/fileformat"
)

var _ fileformat.SharedMapper = (*Poison)(nil)

// TestPoison: windows hold the data until unmapped, then 0xFF; the
// shared ones are counted.
func TestPoison(t *testing.T) {
	m := NewPoison([]byte("abcdef"))
	for _, tc := range []struct {
		name string
		off  int64
		n    int
		want string
	}{
		{"start", 0, 3, "abc"},
		{"past the end", 4, 9, "ef"},
		{"beyond", 9, 2, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			w, unmap, err := m.MapShared(tc.off, tc.n)
			if err != nil || string(w) != tc.want {
				t.Fatalf("MapShared = %q, %v; want %q", w, err, tc.want)
			}
			if m.Live.Load() != 1 {
				t.Fatalf("%d live windows, want 1", m.Live.Load())
			}
			unmap()
			if m.Live.Load() != 0 || len(w) > 0 && !bytes.Equal(w, bytes.Repeat([]byte{0xFF}, len(w))) {
				t.Fatalf("after unmap: %d live, window %q", m.Live.Load(), w)
			}
		})
	}
	w, _ := m.MapAt(1, 2)
	if string(w) != "bc" {
		t.Fatalf("MapAt = %q", w)
	}
	m.Unmap()
	if w[0] != 0xFF {
		t.Fatal("MapAt's window not poisoned by Unmap")
	}
}
