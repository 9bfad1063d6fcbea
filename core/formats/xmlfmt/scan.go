package xmlfmt

import (
	"bufio"
	"bytes"
	"errors"
	"io"
)

// errUnclosed marks a record the file ends inside of.
var errUnclosed = errors.New("the file ends inside the record")

// scanner finds the records of an XML stream as Spark's XmlTokenizer does:
// the text from a start tag named rowTag to its matching end tag (or a
// self-closing rowTag element), wherever it is nested. Comments, CDATA
// sections, processing instructions and declarations are skipped between
// records and kept inside them, so a rowTag inside them does not count.
// Only the current record is held in memory.
type scanner struct {
	r     *bufio.Reader
	tag   []byte // rowTag
	rec   []byte // the record being captured
	line  int64  // current line, from 1
	start int64  // line where the last record starts
	inRec bool
	depth int
	err   error
}

func newScanner(r io.Reader, rowTag string) *scanner {
	return &scanner{r: bufio.NewReaderSize(r, 64<<10), tag: []byte(rowTag), line: 1}
}

func (s *scanner) byte() (byte, error) {
	c, err := s.r.ReadByte()
	if err != nil {
		return 0, err
	}
	if c == '\n' {
		s.line++
	}
	if s.inRec {
		s.rec = append(s.rec, c)
	}
	return c, nil
}

// skipUntil consumes bytes up to and including end.
func (s *scanner) skipUntil(end string) error {
	matched := 0
	for {
		c, err := s.byte()
		if err != nil {
			return err
		}
		switch {
		case c == end[matched]:
			matched++
			if matched == len(end) {
				return nil
			}
		case c == end[0]:
			matched = 1
			if len(end) == 1 {
				return nil
			}
		default:
			matched = 0
		}
	}
}

// tagRest consumes the rest of a tag up to its '>', honouring quoted
// attribute values; it reports whether the tag was self-closing.
func (s *scanner) tagRest() (selfClosing bool, err error) {
	var quote byte
	prev := byte(0)
	for {
		c, err := s.byte()
		if err != nil {
			return false, err
		}
		switch {
		case quote != 0:
			if c == quote {
				quote = 0
			}
		case c == '"' || c == '\'':
			quote = c
		case c == '>':
			return prev == '/', nil
		}
		prev = c
	}
}

// isNameEnd reports whether c ends a tag name.
func isNameEnd(c byte) bool {
	return c == '>' || c == '/' || c == ' ' || c == '\t' || c == '\n' || c == '\r'
}

// matchName reads len(tag) bytes after "<" or "</" and the byte after
// them; it reports whether they are the row tag followed by a name end.
// The bytes are consumed either way (the last one is returned so the
// caller can continue from it).
func (s *scanner) matchName() (bool, byte, error) {
	for i := 0; i < len(s.tag); i++ {
		c, err := s.byte()
		if err != nil {
			return false, 0, err
		}
		if c != s.tag[i] {
			return false, c, nil
		}
	}
	c, err := s.byte()
	if err != nil {
		return false, 0, err
	}
	return isNameEnd(c), c, nil
}

// next returns the next record's text (valid until the next call) and the
// line it starts on, or io.EOF. A file that ends inside a record returns
// that partial record with errUnclosed.
func (s *scanner) next() ([]byte, int64, error) {
	if s.err != nil {
		return nil, 0, s.err
	}
	s.rec, s.inRec, s.depth = s.rec[:0], false, 0
	for {
		c, err := s.byte()
		if err != nil {
			return s.fail(err)
		}
		if c != '<' {
			continue
		}
		startLine := s.line
		if !s.inRec {
			s.rec = append(s.rec[:0], '<')
		}
		wasIn := s.inRec
		s.inRec = true // capture tentatively; dropped below when not a record
		c, err = s.byte()
		if err != nil {
			return s.fail(err)
		}
		switch c {
		case '!':
			err = s.skipSpecial()
		case '?':
			err = s.skipUntil("?>")
		case '/':
			if !wasIn {
				break
			}
			ok, last, err2 := s.matchName()
			if err2 != nil {
				return s.fail(err2)
			}
			if ok && last != '/' {
				if last != '>' {
					if err := s.skipUntil(">"); err != nil {
						return s.fail(err)
					}
				}
				s.depth--
				if s.depth == 0 {
					s.inRec = false
					return s.rec, s.start, nil
				}
			}
		default:
			if c != s.tag[0] {
				break
			}
			// Put the byte back into the name match.
			ok, last, err2 := s.matchRest()
			if err2 != nil {
				return s.fail(err2)
			}
			if ok {
				self := last == '/'
				if last != '>' {
					sc, err := s.tagRest()
					if err != nil {
						return s.fail(err)
					}
					self = self || sc
				}
				if !wasIn {
					s.start = startLine
				}
				if !self {
					s.depth++
				} else if s.depth == 0 {
					s.inRec = false
					return s.rec, s.start, nil
				}
			}
		}
		if err != nil {
			return s.fail(err)
		}
		if !wasIn && s.depth == 0 {
			s.inRec = false
			s.rec = s.rec[:0]
		}
	}
}

// matchRest matches the row tag after its first byte was read.
func (s *scanner) matchRest() (bool, byte, error) {
	for i := 1; i < len(s.tag); i++ {
		c, err := s.byte()
		if err != nil {
			return false, 0, err
		}
		if c != s.tag[i] {
			return false, c, nil
		}
	}
	c, err := s.byte()
	if err != nil {
		return false, 0, err
	}
	return isNameEnd(c), c, nil
}

// skipSpecial skips what follows "<!": a comment, a CDATA section or a
// declaration.
func (s *scanner) skipSpecial() error {
	c, err := s.byte()
	if err != nil {
		return err
	}
	switch c {
	case '-':
		if c, err = s.byte(); err != nil {
			return err
		}
		if c == '-' {
			return s.skipUntil("-->")
		}
		return s.skipUntil(">")
	case '[':
		return s.skipUntil("]]>")
	}
	return s.skipUntil(">")
}

func (s *scanner) fail(err error) ([]byte, int64, error) {
	if errors.Is(err, io.EOF) {
		if s.inRec && s.depth > 0 {
			s.err = io.EOF
			return bytes.Clone(s.rec), s.start, errUnclosed
		}
		s.err = io.EOF
		return nil, 0, io.EOF
	}
	s.err = err
	return nil, 0, err
}
