package convert

import (
	"context"
	"sync"
	"time"

	"github.com/tributary-io/tributary/core/schema"
)

// The decoder of a file runs ahead of the Parquet encoder, but not by much:
// rows handed over and not yet written stay under maxAheadBytes (beyond
// one chunk), so a file of huge values is not held in memory whole — a
// 64 MB value is read only once the one before it is written.
const (
	// maxAheadBytes bounds the decoded rows waiting for the encoder.
	maxAheadBytes = 32 << 20
	// chunkBytes ends a chunk of rows before chunkRows when its rows are
	// this large.
	chunkBytes = 4 << 20
)

// aheadGate counts the bytes of rows handed to the encoder and not yet
// written.
type aheadGate struct {
	mu   sync.Mutex
	cond *sync.Cond
	n    int64
}

func newAheadGate() *aheadGate {
	g := &aheadGate{}
	g.cond = sync.NewCond(&g.mu)
	return g
}

// add counts n bytes handed over.
func (g *aheadGate) add(n int64) {
	g.mu.Lock()
	g.n += n
	g.mu.Unlock()
}

// done counts n bytes written.
func (g *aheadGate) done(n int64) {
	g.mu.Lock()
	g.n -= n
	g.cond.Broadcast()
	g.mu.Unlock()
}

// below reports whether fewer than n bytes are handed over and unwritten.
func (g *aheadGate) below(n int64) bool {
	g.mu.Lock()
	defer g.mu.Unlock()
	return g.n < n
}

// wait blocks while maxAheadBytes or more are handed over and unwritten,
// or until ctx ends.
func (g *aheadGate) wait(ctx context.Context) error { return g.waitUnless(ctx, nil) }

// wake makes the waiters check their exemption again (after what it
// depends on changed).
func (g *aheadGate) wake() {
	g.mu.Lock()
	g.cond.Broadcast()
	g.mu.Unlock()
}

// waitUnless is wait that returns at once while exempt (called with the
// gate's lock held; nil: never) reports true: the decoder of the file the
// encoder is taking never waits for the decoders of the files after it.
func (g *aheadGate) waitUnless(ctx context.Context, exempt func() bool) error {
	g.mu.Lock()
	open := g.n < maxAheadBytes
	g.mu.Unlock()
	if open {
		return ctx.Err() // the common case, without arming a wake-up on ctx
	}
	stop := context.AfterFunc(ctx, func() {
		g.mu.Lock()
		g.cond.Broadcast()
		g.mu.Unlock()
	})
	defer stop()
	g.mu.Lock()
	defer g.mu.Unlock()
	for g.n >= maxAheadBytes && ctx.Err() == nil && (exempt == nil || !exempt()) {
		g.cond.Wait()
	}
	return ctx.Err()
}

// rowBytes estimates the memory of a row's values.
func rowBytes(v any) int64 {
	switch x := v.(type) {
	case string:
		return int64(len(x)) + 16
	case []byte:
		return int64(len(x)) + 24
	case []any:
		n := int64(24)
		for _, e := range x {
			n += rowBytes(e)
		}
		return n
	case []schema.MapEntry:
		n := int64(24)
		for _, e := range x {
			n += rowBytes(e.Key) + rowBytes(e.Value)
		}
		return n
	case schema.Decimal:
		return 32
	case time.Time:
		return 24
	}
	return 16
}
