package parquetio

import (
	"errors"
	"fmt"
	"io"
	"os"
	"sync"
)

// parquet-go keeps a row group's encoded pages in one buffer per column
// until the row group is flushed. The Writer's buffers keep them in memory
// up to spillBytes per column chunk and move them to a temporary file
// beyond, so a huge value (a 64 MB string is a 64 MB page) is not held in
// memory once more while it is encoded.

// DefaultSpillBytes is the default of WriterOptions.SpillBytes.
const DefaultSpillBytes = 16 << 20

// spillChunk is the allocation unit of a buffer's memory.
const spillChunk = 256 << 10

// spillPool hands out spill buffers and closes those still open at the end.
type spillPool struct {
	dir   string
	limit int64
	mu    sync.Mutex
	open  map[*spillBuffer]bool
}

func newSpillPool(dir string, limit int64) *spillPool {
	return &spillPool{dir: dir, limit: limit, open: map[*spillBuffer]bool{}}
}

// GetBuffer implements parquet.BufferPool.
func (p *spillPool) GetBuffer() io.ReadWriteSeeker {
	b := &spillBuffer{pool: p}
	p.mu.Lock()
	p.open[b] = true
	p.mu.Unlock()
	return b
}

// PutBuffer implements parquet.BufferPool: the buffer's memory and file go.
func (p *spillPool) PutBuffer(rw io.ReadWriteSeeker) {
	if b, ok := rw.(*spillBuffer); ok {
		b.release()
	}
}

// close releases every buffer not given back (a writer that failed).
func (p *spillPool) close() {
	p.mu.Lock()
	bufs := make([]*spillBuffer, 0, len(p.open))
	for b := range p.open {
		bufs = append(bufs, b)
	}
	p.mu.Unlock()
	for _, b := range bufs {
		b.release()
	}
}

// spillBuffer is an io.ReadWriteSeeker over memory chunks that moves to a
// temporary file (unlinked at once) when it would grow past the pool's
// limit.
type spillBuffer struct {
	pool   *spillPool
	chunks [][]byte // in memory: the content, spillChunk bytes per chunk
	f      *os.File // spilled: the content
	size   int64
	pos    int64
}

func (b *spillBuffer) Write(p []byte) (int, error) {
	if b.f == nil && b.pos+int64(len(p)) > b.pool.limit {
		if err := b.spill(); err != nil {
			return 0, err
		}
	}
	if b.f != nil {
		n, err := b.f.WriteAt(p, b.pos)
		b.pos += int64(n)
		b.size = max(b.size, b.pos)
		return n, err
	}
	n := 0
	for n < len(p) {
		c, off := int(b.pos/spillChunk), int(b.pos%spillChunk)
		for c >= len(b.chunks) {
			b.chunks = append(b.chunks, make([]byte, spillChunk))
		}
		k := copy(b.chunks[c][off:], p[n:])
		n += k
		b.pos += int64(k)
	}
	b.size = max(b.size, b.pos)
	return n, nil
}

func (b *spillBuffer) Read(p []byte) (int, error) {
	if b.pos >= b.size {
		return 0, io.EOF
	}
	if b.f != nil {
		n, err := b.f.ReadAt(p[:min(int64(len(p)), b.size-b.pos)], b.pos)
		b.pos += int64(n)
		if errors.Is(err, io.EOF) && n > 0 {
			err = nil
		}
		return n, err
	}
	n := 0
	for n < len(p) && b.pos < b.size {
		c, off := int(b.pos/spillChunk), int(b.pos%spillChunk)
		end := min(int64(spillChunk), b.size-int64(c)*spillChunk)
		k := copy(p[n:], b.chunks[c][off:end])
		n += k
		b.pos += int64(k)
	}
	return n, nil
}

func (b *spillBuffer) Seek(offset int64, whence int) (int64, error) {
	switch whence {
	case io.SeekStart:
	case io.SeekCurrent:
		offset += b.pos
	case io.SeekEnd:
		offset += b.size
	default:
		return b.pos, fmt.Errorf("parquetio: page buffer: bad whence %d", whence)
	}
	if offset < 0 {
		return b.pos, fmt.Errorf("parquetio: page buffer: negative position %d", offset)
	}
	b.pos = offset
	return offset, nil
}

// spill moves the content to a temporary file.
func (b *spillBuffer) spill() error {
	f, err := os.CreateTemp(b.pool.dir, "tributary-pages-*")
	if err != nil {
		return fmt.Errorf("parquetio: page buffer: %w", err)
	}
	os.Remove(f.Name()) // the open file stays readable; nothing is left behind
	for c, chunk := range b.chunks {
		n := min(int64(spillChunk), b.size-int64(c)*spillChunk)
		if n <= 0 {
			break
		}
		if _, err := f.WriteAt(chunk[:n], int64(c)*spillChunk); err != nil {
			f.Close()
			return fmt.Errorf("parquetio: page buffer: %w", err)
		}
	}
	b.chunks, b.f = nil, f
	return nil
}

func (b *spillBuffer) release() {
	if b.f != nil {
		b.f.Close()
	}
	b.chunks, b.f, b.size, b.pos = nil, nil, 0, 0
	b.pool.mu.Lock()
	delete(b.pool.open, b)
	b.pool.mu.Unlock()
}
