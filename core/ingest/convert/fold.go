package convert

import (
	"context"
	"log/slog"

	"github.com/tributary-io/tributary/core/formats"
)

// WriteFolded is Write with the records of b's first n files also checked
// against the inference fold as they are read (formats.ReadOptions.Fold:
// a one-pass schema inference), and nothing of the attempt visible: nothing is logged, no
// bad record is recorded (b.Bad is ignored), and a file that cannot be
// read whole fails the attempt instead of being read again or skipped.
// On an error the attempt's data files are removed; the caller writes the
// batch again with Write.
func (c *Converter) WriteFolded(ctx context.Context, b Batch, fold formats.Inferrer, n int) (*Output, error) {
	checked := make(map[string]bool, n)
	for _, p := range b.Files[:min(n, len(b.Files))] {
		checked[p] = true
	}
	q := *c
	q.Logger = slog.New(slog.DiscardHandler)
	q.Policy = Policy{Name: c.Policy.Name}
	read := c.ReadOptions
	q.ReadOptions = func(path string, bad func(formats.BadRecord)) formats.ReadOptions {
		o := read(path, nil)
		if checked[path] {
			o.Fold = fold
		}
		return o
	}
	b.Bad = nil
	return q.Write(ctx, b, Failures{})
}
