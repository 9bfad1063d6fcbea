package jsoninfer

import (
	"context"
	"strings"
	"testing"

	"github.com/tributary-io/tributary/core/formats/fileformat"
)

// TestCheckerReuses: a Checker left by a closed reader is taken over only
// by a reader of the inferrer it was made of, whose types it still holds
// (nothing sampled since), with the inference's text and options, and
// only while it never refused a record; taken over, it keeps what a fresh
// Checker keeps and refuses what it refuses.
func TestCheckerReuses(t *testing.T) {
	ctx := context.Background()
	options := map[string]string{"inferTimestamp": "true", "timestampFormat": "yyyy-MM-dd HH:mm:ss"}
	iopts := fileformat.InferOptions{InferColumnTypes: true, Options: options}
	const prefix = `{"l":1,"s":"x","t":"2024-01-02 03:04:05","o":{"a":1}}` + "\n"
	infer := func(doc string) fileformat.Inferrer {
		t.Helper()
		in := New(iopts)
		if err := in.Add(ctx, "f0", strings.NewReader(doc)); err != nil {
			t.Fatal(err)
		}
		return in
	}
	keeps := []string{`{"l":2,"s":"y"}`, `{"o":{"a":3},"t":"2024-05-06 07:08:09"}`, `[{"l":4},{}]`}
	// Lines a checker of prefix's types refuses.
	widens := []string{`{"l":2.5}`, `{"z":1}`, `{"o":{"b":1}}`, `{"t":"soon"}`}
	tests := []struct {
		name  string
		lines []string // what the checker's reader checked
		// then: what changed before the next reader (nil: nothing)
		then func(c *Checker, in fileformat.Inferrer) (fileformat.Inferrer, fileformat.TextOptions, map[string]string)
		want bool
	}{
		{"fresh", nil, nil, true},
		{"after records kept", keeps, nil, true},
		{"after a refused record", append(keeps[:1:1], widens[0]), nil, false},
		{"another inferrer of the same data", keeps, func(*Checker, fileformat.Inferrer) (fileformat.Inferrer, fileformat.TextOptions, map[string]string) {
			return infer(prefix), fileformat.TextOptions{}, options
		}, false},
		{"the inferrer sampled more", keeps, func(_ *Checker, in fileformat.Inferrer) (fileformat.Inferrer, fileformat.TextOptions, map[string]string) {
			if err := in.Add(ctx, "f1", strings.NewReader(`{"l":1.5}`)); err != nil {
				t.Fatal(err)
			}
			return in, fileformat.TextOptions{}, options
		}, false},
		{"the inferrer sampled an empty file", keeps, func(_ *Checker, in fileformat.Inferrer) (fileformat.Inferrer, fileformat.TextOptions, map[string]string) {
			if err := in.Add(ctx, "f1", strings.NewReader("")); err != nil {
				t.Fatal(err)
			}
			return in, fileformat.TextOptions{}, options
		}, false},
		{"other options", keeps, func(_ *Checker, in fileformat.Inferrer) (fileformat.Inferrer, fileformat.TextOptions, map[string]string) {
			return in, fileformat.TextOptions{}, map[string]string{"inferTimestamp": "true", "timestampFormat": "dd/MM/yyyy HH:mm"}
		}, false},
		{"other text options", keeps, func(_ *Checker, in fileformat.Inferrer) (fileformat.Inferrer, fileformat.TextOptions, map[string]string) {
			return in, fileformat.TextOptions{LineSep: "\r\n"}, options
		}, false},
		{"equal options, another map", keeps, func(_ *Checker, in fileformat.Inferrer) (fileformat.Inferrer, fileformat.TextOptions, map[string]string) {
			return in, fileformat.TextOptions{}, map[string]string{"timestampFormat": "yyyy-MM-dd HH:mm:ss", "inferTimestamp": "true"}
		}, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			in := infer(prefix)
			c, err := NewChecker(in, fileformat.TextOptions{}, options)
			if err != nil {
				t.Fatal(err)
			}
			for _, l := range tt.lines {
				c.Keeps([]byte(l))
			}
			next, text, opts := in, fileformat.TextOptions{}, options
			if tt.then != nil {
				next, text, opts = tt.then(c, in)
			}
			if got := c.Reuses(next, text, opts); got != tt.want {
				t.Fatalf("Reuses = %v, want %v", got, tt.want)
			}
			if !tt.want {
				return
			}
			// Taken over, it checks as a fresh Checker does.
			for _, l := range append(keeps, widens...) {
				fresh, err := NewChecker(next, text, opts)
				if err != nil {
					t.Fatal(err)
				}
				if got, want := c.Keeps([]byte(l)), fresh.Keeps([]byte(l)); got != want {
					t.Fatalf("%s: Keeps %v, a fresh Checker %v", l, got, want)
				}
				if !c.Reuses(next, text, opts) {
					return // refused: no reader takes it over
				}
			}
		})
	}
	if (*Checker)(nil).Reuses(infer(prefix), fileformat.TextOptions{}, options) {
		t.Error("a nil Checker is reused")
	}
}
