package csvpar

import (
	"io"

	"github.com/tributary-io/tributary/core/formats/fileformat"
)

// Counter is an io.Reader that counts the bytes of its source read
// through it.
type Counter interface {
	io.Reader
	Count() int64
}

// Count returns r counting the bytes read: a source read in place
// (fileformat.Mapper) stays one, counted up to the end of the furthest
// window mapped plus what is read with Read (csvtok reads a file either
// way, not both).
func Count(r io.Reader) Counter {
	if m, ok := r.(fileformat.Mapper); ok {
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

// Count is the bytes read.
func (c *countingReader) Count() int64 { return c.n }

// countingMapper counts the bytes of a source read in place.
type countingMapper struct {
	fileformat.Mapper
	mapped int64 // the end of the furthest window mapped
	read   int64 // bytes read with Read
}

// MapAt maps a window, counting up to its end.
func (c *countingMapper) MapAt(off int64, n int) ([]byte, error) {
	b, err := c.Mapper.MapAt(off, n)
	c.mapped = max(c.mapped, off+int64(len(b)))
	return b, err
}

// Read reads, counting the bytes.
func (c *countingMapper) Read(p []byte) (int, error) {
	n, err := c.Mapper.Read(p)
	c.read += int64(n)
	return n, err
}

// Count is the bytes mapped and read.
func (c *countingMapper) Count() int64 { return c.mapped + c.read }
