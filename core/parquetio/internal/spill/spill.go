// Package spill holds the page buffers of the Parquet writer: memory up to
// a limit per buffer, a temporary file beyond.
package spill

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

// DefaultBytes is the default limit of a buffer's memory.
const DefaultBytes = 16 << 20

// chunkBytes is the allocation unit of a buffer's memory.
const chunkBytes = 256 << 10

// Pool hands out spill buffers and closes those still open at the end.
type Pool struct {
	dir   string
	limit int64
	mu    sync.Mutex
	open  map[*buffer]bool
}

// NewPool returns a pool of buffers that keep up to limit bytes in memory
// and spill to temporary files in dir ("" means os.TempDir()) beyond.
func NewPool(dir string, limit int64) *Pool {
	return &Pool{dir: dir, limit: limit, open: map[*buffer]bool{}}
}

// GetBuffer implements parquet.BufferPool.
func (p *Pool) GetBuffer() io.ReadWriteSeeker {
	b := &buffer{pool: p}
	p.mu.Lock()
	p.open[b] = true
	p.mu.Unlock()
	return b
}

// PutBuffer implements parquet.BufferPool: the buffer's memory and file go.
func (p *Pool) PutBuffer(rw io.ReadWriteSeeker) {
	if b, ok := rw.(*buffer); ok {
		b.release()
	}
}

// Close releases every buffer not given back (a writer that failed).
func (p *Pool) Close() {
	p.mu.Lock()
	bufs := make([]*buffer, 0, len(p.open))
	for b := range p.open {
		bufs = append(bufs, b)
	}
	p.mu.Unlock()
	for _, b := range bufs {
		b.release()
	}
}

// buffer is an io.ReadWriteSeeker over memory chunks that moves to a
// temporary file (unlinked at once) when it would grow past the pool's
// limit.
type buffer struct {
	pool   *Pool
	chunks [][]byte // in memory: the content, chunkBytes bytes per chunk
	f      *os.File // spilled: the content
	size   int64
	pos    int64
}

func (b *buffer) Write(p []byte) (int, error) {
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
		c, off := int(b.pos/chunkBytes), int(b.pos%chunkBytes)
		for c >= len(b.chunks) {
			b.chunks = append(b.chunks, make([]byte, chunkBytes))
		}
		k := copy(b.chunks[c][off:], p[n:])
		n += k
		b.pos += int64(k)
	}
	b.size = max(b.size, b.pos)
	return n, nil
}

func (b *buffer) Read(p []byte) (int, error) {
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
		c, off := int(b.pos/chunkBytes), int(b.pos%chunkBytes)
		end := min(int64(chunkBytes), b.size-int64(c)*chunkBytes)
		k := copy(p[n:], b.chunks[c][off:end])
		n += k
		b.pos += int64(k)
	}
	return n, nil
}

// WriteTo writes the content from the current position to w, the memory
// chunks as they are (io.Copy uses it: no copy through a small buffer).
func (b *buffer) WriteTo(w io.Writer) (int64, error) {
	if b.f != nil {
		n, err := io.Copy(w, io.NewSectionReader(b.f, b.pos, b.size-b.pos))
		b.pos += n
		return n, err
	}
	var n int64
	for b.pos < b.size {
		c, off := int(b.pos/chunkBytes), int(b.pos%chunkBytes)
		end := min(int64(chunkBytes), b.size-int64(c)*chunkBytes)
		k, err := w.Write(b.chunks[c][off:end])
		n += int64(k)
		b.pos += int64(k)
		if err != nil {
			return n, err
		}
	}
	return n, nil
}

func (b *buffer) Seek(offset int64, whence int) (int64, error) {
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
func (b *buffer) spill() error {
	f, err := os.CreateTemp(b.pool.dir, "tributary-pages-*")
	if err != nil {
		return fmt.Errorf("parquetio: page buffer: %w", err)
	}
	os.Remove(f.Name()) // the open file stays readable; nothing is left behind
	for c, chunk := range b.chunks {
		n := min(int64(chunkBytes), b.size-int64(c)*chunkBytes)
		if n <= 0 {
			break
		}
		if _, err := f.WriteAt(chunk[:n], int64(c)*chunkBytes); err != nil {
			f.Close()
			return fmt.Errorf("parquetio: page buffer: %w", err)
		}
	}
	b.chunks, b.f = nil, f
	return nil
}

func (b *buffer) release() {
	if b.f != nil {
		b.f.Close()
	}
	b.chunks, b.f, b.size, b.pos = nil, nil, 0, 0
	b.pool.mu.Lock()
	delete(b.pool.open, b)
	b.pool.mu.Unlock()
}
