// Package ctxio holds small context-aware I/O helpers shared by the adapters.
package ctxio

import (
	"context"
	"fmt"
	"io"
	"time"
)

// Copy copies src to dst through a buffer of bufSize bytes, checking ctx
// between chunks. Read and write errors are wrapped differently ("reading
// source" / "writing") so callers can tell which side failed.
func Copy(ctx context.Context, dst io.Writer, src io.Reader, bufSize int) (int64, error) {
	buf := make([]byte, bufSize)
	var n int64
	for {
		if err := ctx.Err(); err != nil {
			return n, err
		}
		k, rerr := src.Read(buf)
		if k > 0 {
			w, werr := dst.Write(buf[:k])
			n += int64(w)
			if werr != nil {
				return n, fmt.Errorf("writing: %w", werr)
			}
		}
		if rerr == io.EOF {
			return n, ctx.Err()
		}
		if rerr != nil {
			return n, fmt.Errorf("reading source: %w", rerr)
		}
	}
}

// Sleep waits for d or until ctx is done, whichever comes first.
func Sleep(ctx context.Context, d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-t.C:
		return nil
	}
}
