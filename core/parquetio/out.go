package parquetio

import (
	"bufio"
	"bytes"
	"io"
)

// outWriter is the Writer's output: buffered, with the bytes written after
// the last row group (page indexes and footer) captured for rewriting.
type outWriter struct {
	bw   *bufio.Writer
	n    int64         // bytes written through bw
	tail *bytes.Buffer // non-nil while capturing
}

func newOutWriter(w io.Writer) *outWriter {
	return &outWriter{bw: bufio.NewWriterSize(w, 64<<10)}
}

func (o *outWriter) Write(p []byte) (int, error) {
	if o.tail != nil {
		return o.tail.Write(p)
	}
	n, err := o.bw.Write(p)
	o.n += int64(n)
	return n, err
}
