package localfs

import (
	"io/fs"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
)

// fakeEntry is a directory entry as a directory read gives it.
type fakeEntry struct {
	name string
	dir  bool
}

func (e fakeEntry) Name() string { return e.name }
func (e fakeEntry) IsDir() bool  { return e.dir }
func (e fakeEntry) Type() fs.FileMode {
	if e.dir {
		return fs.ModeDir
	}
	return 0
}
func (e fakeEntry) Info() (fs.FileInfo, error) { return nil, fs.ErrInvalid }

// checkKeyOrder fails unless keyOrder orders entries as a sort of their
// keys by string comparison does.
func checkKeyOrder(t *testing.T, entries []fs.DirEntry) {
	t.Helper()
	order := keyOrder(entries)
	if len(order) != len(entries) {
		t.Fatalf("%d indexes for %d entries", len(order), len(entries))
	}
	got := make([]string, len(order))
	seen := make([]bool, len(entries))
	for j, i := range order {
		if seen[i] {
			t.Fatalf("index %d twice", i)
		}
		seen[i] = true
		got[j] = rawKey(entries[i])
	}
	want := make([]string, len(entries))
	for i, e := range entries {
		want[i] = rawKey(e)
	}
	slices.Sort(want)
	if !slices.Equal(got, want) {
		t.Fatalf("keyOrder gives\n%q\nwant\n%q", got, want)
	}
}

// keyOrder sorts by the whole key: names that share their first 16
// bytes, names that are prefixes of others, directories (whose '/' sorts
// after '-' and '.' but before letters), bytes past 0x7f and invalid
// UTF-8 (U+FFFD).
func TestKeyOrder(t *testing.T) {
	for _, tc := range []struct {
		name    string
		entries []fakeEntry
	}{
		{"empty", nil},
		{"one", []fakeEntry{{"a", false}}},
		{"a directory before a longer name", []fakeEntry{{"a-b", false}, {"a", true}, {"a.c", false}, {"ab", false}}},
		{"shared 16-byte heads", []fakeEntry{{"part-0000000000001.json", false}, {"part-0000000000000.json", false}, {"part-000000000000", false}, {"part-0000000000000", true}}},
		{"a prefix exactly 16 bytes long", []fakeEntry{{"0123456789abcdef", false}, {"0123456789abcdef0", false}, {"0123456789abcde", false}}},
		{"past ASCII and invalid UTF-8", []fakeEntry{{"é", false}, {"\xff", false}, {"z", false}, {"\xffa", true}, {"\uFFFD", false}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			entries := make([]fs.DirEntry, len(tc.entries))
			for i, e := range tc.entries {
				entries[i] = e
			}
			checkKeyOrder(t, entries)
		})
	}
}

// Random directories of names drawn from a small alphabet (so that heads
// and prefixes are often shared), directories among them.
func TestKeyOrderRandom(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	alphabet := []string{"a", "b", "-", ".", "0", "1", "é", "\xff"}
	for range 500 {
		n := r.IntN(60)
		entries := make([]fs.DirEntry, n)
		for i := range entries {
			var b strings.Builder
			for range 1 + r.IntN(24) {
				b.WriteString(alphabet[r.IntN(len(alphabet))])
			}
			entries[i] = fakeEntry{b.String(), r.IntN(4) == 0}
		}
		checkKeyOrder(t, entries)
	}
}

// FuzzKeyOrder splits its input into names at NUL bytes (a name cannot
// hold one); a name's first byte odd makes it a directory.
func FuzzKeyOrder(f *testing.F) {
	f.Add("a-b\x00a\x00a.c\x00ab")
	f.Add("part-0000000000001.json\x00part-0000000000000.json\x00part-000000000000")
	f.Add("\xff\x00\xffa\x00\uFFFD")
	f.Fuzz(func(t *testing.T, s string) {
		var entries []fs.DirEntry
		for _, name := range strings.Split(s, "\x00") {
			if name != "" {
				entries = append(entries, fakeEntry{name, name[0]%2 == 1})
			}
		}
		checkKeyOrder(t, entries)
	})
}
