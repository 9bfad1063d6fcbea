package textfmt

import (
	"bytes"
	"errors"
	"io"
)

// bufSize is the splitter's initial read buffer; a longer line grows it.
const bufSize = 64 << 10

// splitter splits a UTF-8 stream into lines as Hadoop's LineReader does:
// by default a line ends at "\n", "\r\n" or "\r"; with sep at that string.
// An empty line is a line (""); a final line without its end is a line; a
// stream ending with a line end has no empty line after it.
type splitter struct {
	r        io.Reader
	sep      []byte
	buf      []byte
	pos, end int
	from     int // where the search for the line end resumes
	err      error
	skipLF   bool // the last line ended at "\r": a "\n" next belongs to it
	bomDone  bool
}

func newSplitter(r io.Reader, sep string) *splitter {
	s := &splitter{r: r, buf: make([]byte, bufSize)}
	if sep != "" {
		s.sep = []byte(sep)
		if len(s.buf) < 4*len(s.sep) {
			s.buf = make([]byte, 4*len(s.sep))
		}
	}
	return s
}

// next returns the next line without its end, valid until the next call,
// or io.EOF.
func (s *splitter) next() ([]byte, error) {
	for {
		if !s.bomDone && (s.end-s.pos >= 3 || s.err != nil) {
			s.bomDone = true
			if bytes.HasPrefix(s.buf[s.pos:s.end], bom) {
				s.pos += len(bom)
				s.from = s.pos
			}
		}
		if s.bomDone {
			if s.skipLF && s.pos < s.end {
				if s.buf[s.pos] == '\n' {
					s.pos++
				}
				s.skipLF = false
			}
			s.from = max(s.from, s.pos)
			if i, n := s.find(); i >= 0 {
				line := s.buf[s.pos:i]
				s.pos = i + n
				s.from = s.pos
				return line, nil
			}
		}
		if s.err != nil {
			if !errors.Is(s.err, io.EOF) {
				return nil, s.err
			}
			if s.pos == s.end {
				return nil, io.EOF
			}
			line := s.buf[s.pos:s.end]
			s.pos, s.from = s.end, s.end
			return line, nil
		}
		s.fill()
	}
}

var bom = []byte{0xEF, 0xBB, 0xBF}

// find returns the index of the end of the line starting at pos and the
// end's length, or -1.
func (s *splitter) find() (int, int) {
	data := s.buf[s.from:s.end]
	if s.sep != nil {
		if i := bytes.Index(data, s.sep); i >= 0 {
			return s.from + i, len(s.sep)
		}
		// The separator may straddle the end of the data: search again
		// from its possible start once more data has come in.
		s.from = max(s.pos, s.end-len(s.sep)+1)
		return -1, 0
	}
	i := bytes.IndexAny(data, "\r\n")
	if i < 0 {
		s.from = s.end
		return -1, 0
	}
	i += s.from
	if s.buf[i] == '\n' {
		return i, 1
	}
	// "\r": "\r\n" is one end; when "\r" is the last byte read, the "\n"
	// may be in the next read.
	if i+1 < s.end {
		if s.buf[i+1] == '\n' {
			return i, 2
		}
		return i, 1
	}
	s.skipLF = true
	return i, 1
}

// fill reads more input, moving unread data to the front or growing the
// buffer when it is full.
func (s *splitter) fill() {
	if s.pos > 0 {
		n := copy(s.buf, s.buf[s.pos:s.end])
		s.from -= s.pos
		s.end = n
		s.pos = 0
	}
	if s.end == len(s.buf) {
		nb := make([]byte, 2*len(s.buf))
		copy(nb, s.buf[:s.end])
		s.buf = nb
	}
	n, err := s.r.Read(s.buf[s.end:])
	s.end += n
	if err != nil {
		s.err = err
	} else if n == 0 {
		// A reader returning 0, nil repeatedly would spin; io.Reader allows
		// it rarely, so just try again.
		return
	}
}
