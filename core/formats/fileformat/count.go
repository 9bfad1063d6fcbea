package fileformat

import "io"

// ByteCounter is a source reader that counts the bytes of its source read
// through it (the inference sample's size).
type ByteCounter interface {
	io.Reader
	// Count is the bytes of the source read so far: up to the end of the
	// furthest window mapped (Mapper) or, once Read is used, up to where
	// the reads reached, whichever is further.
	Count() int64
}

// CountBytes returns r counting the bytes read. A source read in place
// keeps its capability (a Mapper stays a Mapper, a SharedMapper a
// SharedMapper): its windows count up to their end, and what is read with
// Read after mapping stops counts from where Seek placed it.
func CountBytes(r io.Reader) ByteCounter {
	if m, ok := r.(SharedMapper); ok {
		return &countingSharedMapper{countingMapper{Mapper: m}, m}
	}
	if m, ok := r.(Mapper); ok {
		return &countingMapper{Mapper: m}
	}
	return &countingReader{r: r}
}

// countingReader counts the bytes read through it.
type countingReader struct {
	r io.Reader
	n int64
}

func (c *countingReader) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	c.n += int64(n)
	return n, err
}

func (c *countingReader) Count() int64 { return c.n }

// countingMapper counts the bytes of a source read in place.
type countingMapper struct {
	Mapper
	mapped int64 // the end of the furthest window mapped
	pos    int64 // the read position (after Seek)
	read   int64 // bytes read with Read
}

func (c *countingMapper) MapAt(off int64, n int) ([]byte, error) {
	b, err := c.Mapper.MapAt(off, n)
	c.mapped = max(c.mapped, off+int64(len(b)))
	return b, err
}

func (c *countingMapper) Seek(off int64, whence int) (int64, error) {
	p, err := c.Mapper.Seek(off, whence)
	if err == nil {
		c.pos = p
	}
	return p, err
}

func (c *countingMapper) Read(p []byte) (int, error) {
	n, err := c.Mapper.Read(p)
	c.read += int64(n)
	return n, err
}

// Size is the source's (fileformat.Sized; -1 when it is not).
func (c *countingMapper) Size() int64 { return SizeOf(c.Mapper) }

func (c *countingMapper) Count() int64 {
	if c.read == 0 {
		return c.mapped
	}
	return max(c.mapped, c.pos+c.read)
}

// countingSharedMapper is countingMapper for a SharedMapper, counting its
// shared windows too.
type countingSharedMapper struct {
	countingMapper
	sm SharedMapper
}

func (c *countingSharedMapper) MapShared(off int64, n int) ([]byte, func(), error) {
	b, unmap, err := c.sm.MapShared(off, n)
	c.mapped = max(c.mapped, off+int64(len(b)))
	return b, unmap, err
}
