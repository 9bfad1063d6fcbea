package csvcol

import (
	"math/rand/v2"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// safeHeaderByMap is SafeHeader as it was written first, with a map of
// the lower-cased names: the reference.
func safeHeaderByMap(row []string, nullValue string) []string {
	count := map[string]int{}
	for _, v := range row {
		if v != "" && v != nullValue {
			count[strings.ToLower(v)]++
		}
	}
	out := make([]string, len(row))
	for i, v := range row {
		switch {
		case v == "" || v == nullValue:
			out[i] = "_c" + strconv.Itoa(i)
		case count[strings.ToLower(v)] > 1:
			out[i] = v + strconv.Itoa(i)
		default:
			out[i] = v
		}
	}
	return out
}

func checkSafeHeader(t *testing.T, row []string, nullValue string) {
	t.Helper()
	if got, want := SafeHeader(row, nullValue), safeHeaderByMap(row, nullValue); !slices.Equal(got, want) {
		t.Fatalf("SafeHeader(%q, %q) = %q, want %q", row, nullValue, got, want)
	}
}

// SafeHeader names a header's columns as Spark does (an empty or null
// name _c<i>, a name repeated case-insensitively suffixed with its
// index), with or without its map of names (more than 64 columns).
func TestSafeHeader(t *testing.T) {
	for _, tc := range []struct {
		row       []string
		nullValue string
		want      []string
	}{
		{[]string{"a", "b", "c"}, "", []string{"a", "b", "c"}},
		{[]string{"a", "A", "b"}, "", []string{"a0", "A1", "b"}},
		{[]string{"", "x", "null", "x"}, "null", []string{"_c0", "x1", "_c2", "x3"}},
		{[]string{"", ""}, "", []string{"_c0", "_c1"}},
		{[]string{"É", "é", "\u212a", "k"}, "", []string{"É0", "é1", "\u212a2", "k3"}},
	} {
		if got := SafeHeader(tc.row, tc.nullValue); !slices.Equal(got, tc.want) {
			t.Errorf("SafeHeader(%q, %q) = %q, want %q", tc.row, tc.nullValue, got, tc.want)
		}
	}
	r := rand.New(rand.NewPCG(7, 8))
	names := []string{"", "a", "A", "b", "B", "null", "NULL", "é", "É", "\u212a", "k", "K", "id", "Id"}
	for range 3000 {
		row := make([]string, r.IntN(100))
		for i := range row {
			row[i] = names[r.IntN(len(names))]
			if r.IntN(3) == 0 {
				row[i] += strconv.Itoa(r.IntN(50))
			}
		}
		checkSafeHeader(t, row, []string{"", "null", "a"}[r.IntN(3)])
	}
}

// FuzzSafeHeader splits its input into a header at commas.
func FuzzSafeHeader(f *testing.F) {
	f.Add("a,A,b", "")
	f.Add(",x,null,x", "null")
	f.Add("É,é,\u212a,k", "")
	f.Fuzz(func(t *testing.T, header, nullValue string) {
		checkSafeHeader(t, strings.Split(header, ","), nullValue)
	})
}
