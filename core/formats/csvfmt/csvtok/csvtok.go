// Package csvtok splits decoded (UTF-8) CSV text into records of values
// the way Spark's CSV parser (univocity) does, streaming, one record at a
// time: the rules are in the csvfmt package doc. It knows nothing of
// types, schemas or null values: csvfmt resolves those.
package csvtok

import (
	"bufio"
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"math/bits"
	"unicode/utf8"

	"github.com/tributary-io/tributary/core/formats/fileformat"
)

// ErrLimit is wrapped when a record exceeds maxColumns or a value
// exceeds maxCharsPerColumn: Spark's parser fails the file then (whatever
// the mode), and so does Tributary, naming the file, the line and the
// option.
var ErrLimit = errors.New("CSV parser limit exceeded")

// UnescapedQuoteHandling values (Spark's unescapedQuoteHandling).
const (
	StopAtDelimiter    = "STOP_AT_DELIMITER"
	BackToDelimiter    = "BACK_TO_DELIMITER"
	StopAtClosingQuote = "STOP_AT_CLOSING_QUOTE"
	SkipValue          = "SKIP_VALUE"
	RaiseError         = "RAISE_ERROR"
)

// Config is what the tokenizer needs of Spark's CSV options (csvfmt
// resolves them).
type Config struct {
	Sep                      string // the delimiter, one or more characters
	LineSep                  string // "": "\n", "\r\n" or "\r"
	Quote                    rune   // 0: quoting off
	Escape                   rune   // 0: no escape
	CharToEscapeQuoteEscape  rune   // 0: none
	Comment                  rune   // 0: no comment lines
	MultiLine                bool
	IgnoreLeadingWhiteSpace  bool
	IgnoreTrailingWhiteSpace bool
	UnescapedQuoteHandling   string
	MaxColumns               int
	MaxCharsPerColumn        int // <= 0: unlimited
	SkipRows                 int
	// Slow makes every record take the rune-by-rune path: tests use it as
	// the oracle of the fast paths.
	Slow bool
}

// Token is one parsed value: its text is Tokenizer.Bytes.
type Token struct {
	Start, End int
	Quoted     bool // the value was quoted ("" is then emptyValue, not null)
	Skip       bool // SKIP_VALUE dropped it: null
}

// Tokenizer splits decoded (UTF-8) CSV text into records of values,
// streaming: it holds one record at a time. See the csvfmt package doc
// for the rules it follows.
type Tokenizer struct {
	in      input
	o       *Config
	sep     []byte
	sepR    rune // first rune of sep
	lineSep rune // 0: "\n", "\r\n" or "\r"

	buf   []byte  // the values of the record
	raw   []byte  // the record's text, without its line end
	toks  []Token // the record's values
	bad   string  // why the record is malformed ("" when it is not)
	line  int64   // line the current record starts on, from 1
	cur   int64   // line the reader is on, from 1
	eof   bool
	first bool // nothing read yet (byte order mark)
	chars int  // characters in the value being read
	// back is a rune read ahead (peek) or taken back (unread).
	back    rune
	hasBack bool
	// literal makes quotes plain characters (the rest of a value after an
	// unescaped quote).
	literal bool
	// stopU and stopQ are the ASCII bytes that end a fast run of plain
	// bytes in an unquoted and a quoted value.
	stopU, stopQ [256]bool
	// lines says that the options allow splitLine: default line ends, a
	// one-byte ASCII delimiter, ASCII (or no) quote and escapes, no value
	// limit.
	lines bool
	// esc are the bytes that send a quoted value to the rune-by-rune path
	// (escape, charToEscapeQuoteEscaping; 0: none), esc[0] set first.
	esc [2]byte
	// view says that toks index raw, which is then the line in the read
	// buffer (splitLine), not buf; own keeps raw's memory meanwhile.
	own  []byte
	view bool
	// ahead is what splitLine found searching the read buffer beyond
	// the line it took, for the lines after it.
	ahead ahead
	// noUTF8 makes splitLine take lines without validating them
	// (SkipUTF8Check).
	noUTF8 bool
	// masks are the bitmaps of the line splitMasked reads; escw the
	// escape bytes ("\r" for none) repeated eight times, for them.
	masks blockMasks
	escw  [2]uint64
}

// ahead holds, for the bytes buffered from the read position on, where
// the next "\r" and escape bytes are and whether the lines are valid
// UTF-8: found once per read buffer rather than once per line. Offsets
// are from the read position; splitLine moves them as it consumes lines,
// and anything else that consumes input forgets them (forget).
type ahead struct {
	ok bool
	// buffered is the number of bytes buffered from the read position
	// (the buffer does not grow while ok: it fills on the rune-by-rune
	// path only).
	buffered int
	// cr, esc1 and esc2 are the offsets of the next "\r" and escape
	// bytes (buffered when there is none); -1: to be searched for.
	cr, esc1, esc2 int
	// utf is the number of bytes (whole lines) whose UTF-8 validity
	// utfOK tells: true when they are all valid, false when each line
	// must be checked.
	utf   int
	utfOK bool
}

// forget drops what splitLine found ahead.
func (t *Tokenizer) forget() { t.ahead.ok = false }

// next returns the offset of the next c from the read position in b (the
// buffered bytes), searching when *at is not known.
func next(at *int, b []byte, c byte) int {
	if *at < 0 {
		*at = bytes.IndexByte(b, c)
		if *at < 0 {
			*at = len(b)
		}
	}
	return *at
}

// New returns a tokenizer reading r with c (which it keeps: c must not
// change while it is in use).
func New(r io.Reader, c *Config) *Tokenizer {
	t := &Tokenizer{}
	t.Reset(r, c)
	return t
}

// Reset makes t what New(r, c) returns, keeping its buffers, and what it
// derived from its configuration when c is the one it had (the same
// pointer): a tokenizer of a batch's files, handed from one file's reader
// to the next. Nothing t returned before (Bytes, Tokens, Raw) may be used
// after. The window of a source read in place is dropped, not unmapped:
// its source's Close unmaps it, as when a tokenizer is dropped.
func (t *Tokenizer) Reset(r io.Reader, c *Config) {
	old := *t
	*t = Tokenizer{o: c, cur: 1, first: true, buf: old.buf[:0], toks: old.toks[:0]}
	t.in.br = old.in.br
	t.in.reset(r)
	if old.o == c && c != nil {
		t.sep, t.sepR, t.lineSep, t.lines = old.sep, old.sepR, old.lineSep, old.lines
		t.stopU, t.stopQ, t.esc, t.escw = old.stopU, old.stopQ, old.esc, old.escw
		return
	}
	t.derive()
}

// Drop lets go of t's source and of the record's text, which may be a
// view of it: a tokenizer kept for a later Reset (which sets everything
// else again) holds on to no file. A window of a source read in place is
// dropped, not unmapped (as in Reset).
func (t *Tokenizer) Drop() {
	if t.in.br != nil {
		t.in.br.Reset(nil)
	}
	t.in = input{br: t.in.br}
	t.raw, t.own, t.view = nil, nil, false
}

// derive sets what t reads by from its configuration: the delimiter, the
// line separator, the stop tables, whether lines may be split whole, the
// escapes.
func (t *Tokenizer) derive() {
	o, lineSep := t.o, t.o.LineSep
	t.sep = []byte(o.Sep)
	t.sepR, _ = utf8.DecodeRuneInString(o.Sep)
	if lineSep != "" {
		t.lineSep, _ = utf8.DecodeRuneInString(lineSep)
	}
	for _, r := range []rune{'\n', '\r', t.lineSep, t.sepR, o.Quote} {
		if r < utf8.RuneSelf {
			t.stopU[r] = true
		}
	}
	for _, r := range []rune{'\n', '\r', t.lineSep, o.Quote, o.Escape, o.CharToEscapeQuoteEscape} {
		if r < utf8.RuneSelf {
			t.stopQ[r] = true
		}
	}
	t.lines = t.lineSep == 0 && len(t.sep) == 1 && t.sep[0] < utf8.RuneSelf && t.sep[0] != '\n' && t.sep[0] != '\r' &&
		o.Quote < utf8.RuneSelf && o.Escape < utf8.RuneSelf && o.CharToEscapeQuoteEscape < utf8.RuneSelf && o.MaxCharsPerColumn <= 0 && !o.Slow
	// A quote that is the delimiter or a line end is left to the
	// rune-by-rune path (which opens a quoted value at a "\n" quote).
	t.lines = t.lines && (o.Quote == 0 || byte(o.Quote) != t.sep[0]) && o.Quote != '\n' && o.Quote != '\r'
	for _, r := range []rune{o.Escape, o.CharToEscapeQuoteEscape} {
		// An escape equal to the quote is never met inside a quoted value
		// (the quote ends it first).
		switch {
		case r == 0 || r == o.Quote:
		case t.esc[0] == 0:
			t.esc[0] = byte(r)
		case t.esc[0] != byte(r):
			t.esc[1] = byte(r)
		}
	}
	for i, e := range t.esc {
		if e == 0 {
			e = '\r'
		}
		t.escw[i] = lows * uint64(e)
	}
}

// splitLine is the fast path of next for the common record: a whole line
// in the read buffer, valid UTF-8, with no "\r" but a final "\r\n", whose
// values are unquoted without a quote character, or quoted without an
// escape character and closed by a quote right before the delimiter or the
// line end. Its values are then read as field reads them (leading and
// trailing white space of unquoted values dropped as the options say), as
// views of the line in the read buffer (src, and raw, are the line: no
// copy). It reports false, having consumed nothing, for any other record,
// which the rune-by-rune path reads.
func (t *Tokenizer) splitLine() bool {
	if !t.lines || t.hasBack {
		return false
	}
	b := t.in.buffered()
	nl := bytes.IndexByte(b, '\n')
	if nl < 0 {
		// The line goes on past the buffered bytes: read more (a mapped
		// window from the line on, or a full read buffer) once.
		if !t.in.more() {
			return false
		}
		b = t.in.buffered()
		if nl = bytes.IndexByte(b, '\n'); nl < 0 {
			return false
		}
	}
	line := b[:nl]
	if n := len(line); n > 0 && line[n-1] == '\r' {
		line = line[:n-1]
	}
	a := &t.ahead
	if !a.ok || a.buffered != len(b) {
		*a = ahead{ok: true, buffered: len(b), cr: -1, esc1: -1, esc2: -1}
	}
	masked, firstHigh := len(line) <= maxMaskedLine, 0
	if masked {
		var special bool
		firstHigh, special = t.masks.lineMasks(line, b, t.sep[0], byte(t.o.Quote), t.escw)
		if !special {
			// No "\r" and no escape byte in the line: nothing to search.
			if !t.splitMasked(line, len(line), firstHigh) {
				t.toks = t.toks[:0]
				return false
			}
			t.take(line, nl+1)
			return true
		}
	}
	if a.utf <= nl && !t.noUTF8 && !masked {
		// The buffered whole lines: valid as a whole, each line is.
		k := bytes.LastIndexByte(b, '\n') + 1
		a.utf, a.utfOK = k, utf8.Valid(b[:k])
	}
	escAt := len(line)
	if t.esc[0] != 0 {
		escAt = min(escAt, next(&a.esc1, b, t.esc[0]))
		if t.esc[1] != 0 {
			escAt = min(escAt, next(&a.esc2, b, t.esc[1]))
		}
	}
	// A "\r" but the line's last byte ends a record: the slow path.
	if next(&a.cr, b, '\r') < len(line) {
		return false
	}
	var ok bool
	if masked {
		ok = t.splitMasked(line, escAt, firstHigh)
	} else {
		ok = t.splitFields(line, escAt, a.utfOK || t.noUTF8)
	}
	if !ok {
		t.toks = t.toks[:0]
		return false
	}
	t.take(line, nl+1)
	return true
}

// take makes line, whose n bytes with its line end are at the read
// position, the record splitLine split, and consumes them.
func (t *Tokenizer) take(line []byte, n int) {
	a := &t.ahead
	a.buffered -= n
	a.utf -= n
	for _, at := range []*int{&a.cr, &a.esc1, &a.esc2} {
		if *at >= 0 {
			if *at -= n; *at < 0 {
				*at = -1
			}
		}
	}
	// raw is empty here (nothing of the record was read): keep its memory
	// for the rune-by-rune path and let it be the line.
	t.own, t.raw, t.view = t.raw[:0], line, true
	t.in.Discard(n)
	t.cur++
}

// indexFrom is the index of the first c in line at or after from
// (len(line) when none).
func indexFrom(line []byte, from int, c byte) int {
	if i := bytes.IndexByte(line[from:], c); i >= 0 {
		return from + i
	}
	return len(line)
}

// Masks of sepFrom's word-at-a-time search.
const (
	lows  = 0x0101010101010101
	highs = 0x8080808080808080
)

// sepFrom is indexFrom for the delimiter, inlined for the short distances
// of a record's values: eight bytes at a time, the first byte equal to c
// found as the lowest zero byte of word^c (the has-zero-byte trick's
// lowest flag is exact: a false one only follows a true one).
func sepFrom(line []byte, from int, c byte) int {
	i := from
	for ; i+8 <= len(line); i += 8 {
		x := binary.LittleEndian.Uint64(line[i:]) ^ (lows * uint64(c))
		if m := (x - lows) &^ x & highs; m != 0 {
			return i + bits.TrailingZeros64(m)>>3
		}
	}
	for ; i < len(line); i++ {
		if line[i] == c {
			return i
		}
	}
	return len(line)
}

// escAfter is the index of the first escape byte (esc1, or esc2 when it
// is not 0) in line after pos (len(line) when none).
func escAfter(line []byte, pos int, esc1, esc2 byte) int {
	at := indexFrom(line, pos+1, esc1)
	if esc2 != 0 {
		at = min(at, indexFrom(line, pos+1, esc2))
	}
	return at
}

// splitFields splits line for splitLine into toks (views of line); false
// when a value needs the rune-by-rune path. It finds delimiters, quotes
// and escapes with bytes.IndexByte rather than byte by byte: qAt and
// escAt are the first quote and escape at or after the value being read
// (recomputed when passed).
func (t *Tokenizer) splitFields(line []byte, escAt int, valid bool) bool {
	o := t.o
	sep, q := t.sep[0], byte(o.Quote)
	qAt := len(line)
	if q != 0 {
		qAt = indexFrom(line, 0, q)
	}
	esc1, esc2 := t.esc[0], t.esc[1]
	for pos := 0; ; pos++ {
		if o.IgnoreLeadingWhiteSpace {
			for pos < len(line) && line[pos] <= ' ' && line[pos] != sep {
				pos++
			}
		}
		var tok Token
		if qAt < pos && q != 0 {
			qAt = indexFrom(line, pos, q)
		}
		if q != 0 && pos < len(line) && line[pos] == q {
			end := indexFrom(line, pos+1, q)
			if end == len(line) || (end+1 < len(line) && line[end+1] != sep) {
				return false
			}
			if escAt <= pos && esc1 != 0 {
				escAt = escAfter(line, pos, esc1, esc2)
			}
			if escAt < end {
				return false
			}
			tok = Token{Start: pos + 1, End: end, Quoted: true}
			pos = end + 1
			qAt = -1 // the next quote is not known: look again
		} else {
			end := sepFrom(line, pos, sep)
			if qAt < end {
				return false // a quote in an unquoted value
			}
			v := end
			if o.IgnoreTrailingWhiteSpace {
				for v > pos && line[v-1] <= ' ' {
					v--
				}
			}
			tok = Token{Start: pos, End: v}
			pos = end
		}
		t.toks = append(t.toks, tok)
		if len(t.toks) > o.MaxColumns {
			return false
		}
		if pos >= len(line) {
			return valid || utf8.Valid(line)
		}
	}
}

// splitMasked is splitFields for a line of at most maxMaskedLine bytes
// whose bitmaps t.masks holds (lineMasks), finding the delimiters and
// quotes in them rather than searching the bytes value by value, and
// validating UTF-8 only when the line has a non-ASCII byte (firstHigh,
// its offset, is not len(line)), run by run of non-ASCII bytes.
func (t *Tokenizer) splitMasked(line []byte, escAt, firstHigh int) bool {
	o := t.o
	sep, q := t.sep[0], byte(o.Quote)
	m := &t.masks
	n := len(line)
	lead, trail, maxCols := o.IgnoreLeadingWhiteSpace, o.IgnoreTrailingWhiteSpace, o.MaxColumns
	qAt := n
	if q != 0 {
		qAt = min(nextBit(m.quote, 0), n)
	}
	esc1, esc2 := t.esc[0], t.esc[1]
	toks := t.toks[:0]
	pos := 0
	if !lead && !trail {
		// The values before the first quote, unquoted: one for each
		// delimiter before it, read off the bitmap a word at a time.
		for w := 0; w<<6 < qAt; w++ {
			x := m.sep[w]
			if lim := qAt - w<<6; lim < 64 {
				x &= 1<<lim - 1
			}
			for ; x != 0; x &= x - 1 {
				end := w<<6 + bits.TrailingZeros64(x)
				toks = append(toks, Token{Start: pos, End: end})
				pos = end + 1
			}
		}
		if len(toks) > maxCols {
			t.toks = toks
			return false
		}
	}
	for ; ; pos++ {
		if lead {
			for pos < n && line[pos] <= ' ' && line[pos] != sep {
				pos++
			}
		}
		var tok Token
		if qAt < pos && q != 0 {
			qAt = min(nextBit(m.quote, pos), n)
		}
		if q != 0 && pos < n && line[pos] == q {
			end := min(nextBit(m.quote, pos+1), n)
			if end == n || (end+1 < n && line[end+1] != sep) {
				t.toks = toks
				return false
			}
			if escAt <= pos && esc1 != 0 {
				escAt = escAfter(line, pos, esc1, esc2)
			}
			if escAt < end {
				t.toks = toks
				return false
			}
			tok = Token{Start: pos + 1, End: end, Quoted: true}
			pos = end + 1
			qAt = -1 // the next quote is not known: look again
		} else {
			end := min(nextBit(m.sep, pos), n)
			if qAt < end {
				t.toks = toks
				return false // a quote in an unquoted value
			}
			v := end
			if trail {
				for v > pos && line[v-1] <= ' ' {
					v--
				}
			}
			tok = Token{Start: pos, End: v}
			pos = end
		}
		toks = append(toks, tok)
		if len(toks) > maxCols {
			t.toks = toks
			return false
		}
		if pos >= n {
			t.toks = toks
			return t.noUTF8 || firstHigh == n || validRuns(line, m.high)
		}
	}
}

// fastRun appends to the value the plain ASCII bytes at the read position
// up to the first byte in stop (or the first non-ASCII byte): the common
// case, without decoding runes one by one.
func (t *Tokenizer) fastRun(stop *[256]bool) error {
	if t.hasBack {
		return nil
	}
	b := t.in.buffered()
	n := 0
	for n < len(b) && b[n] < utf8.RuneSelf && !stop[b[n]] {
		n++
	}
	if n == 0 {
		return nil
	}
	t.buf = append(t.buf, b[:n]...)
	t.raw = append(t.raw, b[:n]...)
	t.chars += n
	t.in.Discard(n)
	if m := t.o.MaxCharsPerColumn; m > 0 && t.chars > m {
		return fmt.Errorf("%w: a value is longer than maxCharsPerColumn=%d characters", ErrLimit, m)
	}
	return nil
}

// read consumes one rune and appends it to raw. ok is false at the end of
// the input.
func (t *Tokenizer) read() (rune, bool, error) {
	if t.hasBack {
		t.hasBack = false
		t.raw = utf8.AppendRune(t.raw, t.back)
		return t.back, true, nil
	}
	r, err := t.in.readRune()
	if err != nil {
		if errors.Is(err, io.EOF) {
			t.eof = true
			return 0, false, nil
		}
		return 0, false, err
	}
	t.raw = utf8.AppendRune(t.raw, r)
	return r, true, nil
}

// unread takes back the rune last read (and its raw text).
func (t *Tokenizer) unread(r rune) {
	t.back, t.hasBack = r, true
	t.raw = t.raw[:len(t.raw)-utf8.RuneLen(r)]
}

// peek returns the next rune without consuming it (ok false at the end).
func (t *Tokenizer) peek() (rune, bool) {
	if t.hasBack {
		return t.back, true
	}
	r, err := t.in.readRune()
	if err != nil {
		return 0, false
	}
	t.back, t.hasBack = r, true
	return r, true
}

// unpeek gives a rune peek read (fresh: it was not read ahead before)
// back to the read buffer, so that splitLine may take the line.
func (t *Tokenizer) unpeek(fresh bool) {
	if fresh && t.hasBack && t.in.UnreadRune() == nil {
		t.hasBack = false
	}
}

// peek2 returns the rune after the next one.
func (t *Tokenizer) peek2() (rune, bool) {
	if _, ok := t.peek(); !ok {
		return 0, false
	}
	b := t.in.Peek(utf8.UTFMax)
	if len(b) == 0 {
		return 0, false
	}
	r, _ := utf8.DecodeRune(b)
	return r, true
}

func (t *Tokenizer) isLineEnd(r rune) bool {
	if t.lineSep != 0 {
		return r == t.lineSep
	}
	return r == '\n' || r == '\r'
}

// endLine is called after reading line end r: it drops it from raw, takes
// the "\n" of a "\r\n" and counts the line.
func (t *Tokenizer) endLine(r rune) {
	t.raw = t.raw[:len(t.raw)-utf8.RuneLen(r)]
	if r == '\r' && t.lineSep == 0 {
		if b := t.in.Peek(1); len(b) == 1 && b[0] == '\n' {
			t.in.Discard(1)
		}
	}
	t.cur++
}

// isSep reports whether r, just read, begins the delimiter; when it does
// the rest of the delimiter is consumed.
func (t *Tokenizer) isSep(r rune) bool {
	if r != t.sepR {
		return false
	}
	n := utf8.RuneLen(r)
	if len(t.sep) == n {
		return true
	}
	rest := t.sep[n:]
	b := t.in.Peek(len(rest))
	if string(b) != string(rest) {
		return false
	}
	t.in.Discard(len(rest))
	t.raw = append(t.raw, rest...)
	return true
}

func (t *Tokenizer) emit(r rune) error {
	t.buf = utf8.AppendRune(t.buf, r)
	t.chars++
	if m := t.o.MaxCharsPerColumn; m > 0 && t.chars > m {
		return fmt.Errorf("%w: a value is longer than maxCharsPerColumn=%d characters", ErrLimit, m)
	}
	return nil
}

func isSpace(r rune) bool { return r <= ' ' }

// Next reads the next record into toks (and raw); io.EOF at the end.
// Blank lines and comment lines are skipped, as Spark skips them.
func (t *Tokenizer) Next() error {
	for {
		if t.eof {
			return io.EOF
		}
		if t.view {
			t.raw, t.view = t.own, false
		}
		t.buf, t.raw, t.toks, t.bad = t.buf[:0], t.raw[:0], t.toks[:0], ""
		t.line = t.cur
		if t.first {
			t.first = false
			t.forget()
			fresh := !t.hasBack
			if r, ok := t.peek(); ok && r == '\uFEFF' {
				t.hasBack = false
			}
			t.unpeek(fresh)
			// skipRows: the first lines go, whatever they hold.
			for i := 0; i < t.o.SkipRows && !t.eof; i++ {
				if err := t.skipLine(); err != nil {
					return err
				}
			}
			if t.eof {
				return io.EOF
			}
			t.raw, t.line = t.raw[:0], t.cur
		}
		if t.o.Comment != 0 {
			fresh := !t.hasBack
			if r, ok := t.peek(); ok && r == t.o.Comment {
				if err := t.skipLine(); err != nil {
					return err
				}
				continue
			}
			t.unpeek(fresh)
		}
		for split := t.splitLine(); !split; {
			end, err := t.field()
			if err != nil {
				return err
			}
			if len(t.toks) > t.o.MaxColumns {
				return fmt.Errorf("%w: a record has more than maxColumns=%d columns", ErrLimit, t.o.MaxColumns)
			}
			if end {
				break
			}
		}
		blank := true
		for _, c := range t.raw {
			if c > ' ' {
				blank = false
				break
			}
		}
		if blank {
			if t.eof && len(t.raw) == 0 {
				return io.EOF
			}
			continue
		}
		return nil
	}
}

// skipLine consumes a comment line (quotes in it mean nothing).
func (t *Tokenizer) skipLine() error {
	t.forget()
	for {
		r, ok, err := t.read()
		if err != nil {
			return err
		}
		if !ok {
			return nil
		}
		if t.isLineEnd(r) {
			t.endLine(r)
			return nil
		}
	}
}

// field reads one value; end reports that it ended the record.
func (t *Tokenizer) field() (end bool, err error) {
	t.forget()
	t.chars = 0
	tok := Token{Start: len(t.buf)}
	defer func() {
		tok.End = len(t.buf)
		t.toks = append(t.toks, tok)
	}()
	if t.o.IgnoreLeadingWhiteSpace {
		for {
			r, ok := t.peek()
			if !ok || !isSpace(r) || t.isLineEnd(r) || r == t.sepR {
				break
			}
			_, _, _ = t.read()
		}
	}
	if r, ok := t.peek(); ok && t.o.Quote != 0 && r == t.o.Quote {
		_, _, _ = t.read()
		tok.Quoted = true
		return t.quoted(&tok)
	}
	return t.unquoted(&tok)
}

// unquoted reads the rest of an unquoted value.
func (t *Tokenizer) unquoted(tok *Token) (bool, error) {
	defer func() {
		if t.o.IgnoreTrailingWhiteSpace && !tok.Quoted {
			for len(t.buf) > tok.Start && isSpace(rune(t.buf[len(t.buf)-1])) {
				t.buf = t.buf[:len(t.buf)-1]
			}
		}
	}()
	for {
		if !tok.Skip {
			if err := t.fastRun(&t.stopU); err != nil {
				return true, err
			}
		}
		r, ok, err := t.read()
		if err != nil {
			return true, err
		}
		if !ok {
			return true, nil
		}
		if t.isLineEnd(r) {
			t.endLine(r)
			return true, nil
		}
		if t.isSep(r) {
			return false, nil
		}
		if t.o.Quote != 0 && r == t.o.Quote && !t.literal {
			switch t.o.UnescapedQuoteHandling {
			case RaiseError:
				if t.bad == "" {
					t.bad = "unescaped quote character in an unquoted value (unescapedQuoteHandling=RAISE_ERROR)"
				}
			case SkipValue:
				tok.Skip = true
			}
		}
		if tok.Skip {
			continue
		}
		if err := t.emit(r); err != nil {
			return true, err
		}
	}
}

// quoted reads the rest of a quoted value (the opening quote is read).
func (t *Tokenizer) quoted(tok *Token) (bool, error) {
	o := t.o
	for {
		if err := t.fastRun(&t.stopQ); err != nil {
			return true, err
		}
		r, ok, err := t.read()
		if err != nil {
			return true, err
		}
		if !ok {
			return true, nil // unclosed at the end of the input: the value so far
		}
		switch {
		case o.Escape != 0 && o.Escape != o.Quote && r == o.Escape:
			if p, ok := t.peek(); ok && p == o.Quote {
				_, _, _ = t.read()
				if err := t.emit(o.Quote); err != nil {
					return true, err
				}
				continue
			}
			if o.CharToEscapeQuoteEscape != 0 && r == o.CharToEscapeQuoteEscape {
				if p, ok := t.peek(); ok && p == o.Escape {
					if p2, ok := t.peek2(); ok && p2 == o.Quote {
						// An escaped escape: the quote after it is not escaped.
						_, _, _ = t.read()
						if err := t.emit(o.Escape); err != nil {
							return true, err
						}
						continue
					}
				}
			}
		case o.CharToEscapeQuoteEscape != 0 && r == o.CharToEscapeQuoteEscape && o.Escape != 0 && o.Escape != o.Quote:
			if p, ok := t.peek(); ok && p == o.Escape {
				if p2, ok := t.peek2(); ok && p2 == o.Quote {
					_, _, _ = t.read()
					if err := t.emit(o.Escape); err != nil {
						return true, err
					}
					continue
				}
			}
		case r == o.Quote:
			if p, ok := t.peek(); ok && p == o.Quote && o.Escape == o.Quote {
				// With escape set to the quote character (RFC 4180), a
				// doubled quote is a quote character. With Spark's default
				// escape (\) it is not: the first quote is unescaped.
				_, _, _ = t.read()
				if err := t.emit(o.Quote); err != nil {
					return true, err
				}
				continue
			}
			return t.afterQuote(tok)
		case t.isLineEnd(r):
			if !o.MultiLine {
				// Records are lines: an unclosed quote ends with the line.
				t.endLine(r)
				return true, nil
			}
			t.cur++
			if r == '\r' && t.lineSep == 0 {
				if p, ok := t.peek(); ok && p == '\n' {
					if err := t.emit('\r'); err != nil {
						return true, err
					}
					r, _, _ = t.read()
				}
			}
		}
		if err := t.emit(r); err != nil {
			return true, err
		}
	}
}

// afterQuote handles what follows a closing quote: whitespace, then the
// delimiter or the line end. Anything else means the quote was an
// unescaped quote inside the value: unescapedQuoteHandling decides.
func (t *Tokenizer) afterQuote(tok *Token) (bool, error) {
	var ws []rune
	for {
		r, ok, err := t.read()
		if err != nil {
			return true, err
		}
		if !ok {
			return true, nil
		}
		if t.isLineEnd(r) {
			t.endLine(r)
			return true, nil
		}
		if t.isSep(r) {
			return false, nil
		}
		if isSpace(r) {
			ws = append(ws, r)
			continue
		}
		t.unread(r)
		break
	}
	switch t.o.UnescapedQuoteHandling {
	case StopAtClosingQuote:
		for _, c := range append([]rune{t.o.Quote}, ws...) {
			if err := t.emit(c); err != nil {
				return true, err
			}
		}
		return t.quoted(tok)
	case SkipValue:
		tok.Skip = true
	case RaiseError:
		if t.bad == "" {
			t.bad = "unescaped quote character inside a quoted value (unescapedQuoteHandling=RAISE_ERROR)"
		}
	case BackToDelimiter:
		v := append([]byte(nil), t.buf[tok.Start:]...)
		t.buf = utf8.AppendRune(t.buf[:tok.Start], t.o.Quote)
		t.buf = append(t.buf, v...)
	}
	if !tok.Skip {
		for _, c := range append([]rune{t.o.Quote}, ws...) {
			if err := t.emit(c); err != nil {
				return true, err
			}
		}
	}
	tok.Quoted = false // the rest is read as an unquoted value
	t.literal = true   // quotes from here on are characters
	end, err := t.unquoted(tok)
	t.literal = false
	return end, err
}

// Rest returns a reader positioned right after the last record Next
// returned (after its line end): the rest of the input, for a caller that
// reads on in blocks of lines (a source read in place is copied out of its
// mapped windows). ok is false when the tokenizer holds a rune read ahead,
// which the reader no longer has. The tokenizer must not be used
// afterwards.
func (t *Tokenizer) Rest() (r io.Reader, ok bool) {
	if t.hasBack {
		return nil, false
	}
	return &t.in, true
}

// RestShared returns, when t reads its source in place and the source
// maps shared windows (fileformat.SharedMapper), the source and the byte
// of it Rest's reader starts at, and gives back t's own window: a caller
// cuts the rest from shared windows itself instead of reading it through
// Rest, and reads nothing more through t (t is at the end of its input).
func (t *Tokenizer) RestShared() (m fileformat.SharedMapper, off int64, ok bool) {
	if t.hasBack || t.in.m == nil {
		return nil, 0, false
	}
	if m, ok = t.in.m.(fileformat.SharedMapper); !ok {
		return nil, 0, false
	}
	off = t.in.off + int64(t.in.pos)
	t.in.release()
	return m, off, true
}

// Resume makes t read r as the part of a file that follows a line end:
// no byte order mark is dropped and no skipRows lines are skipped; the
// lines are numbered from 1 (the caller adds where r begins). The read
// buffer and the record memory are reused.
func (t *Tokenizer) Resume(r io.Reader) {
	if t.view {
		t.raw, t.view = t.own, false
	}
	t.in.reset(r)
	t.forget()
	t.buf, t.raw, t.toks, t.bad = t.buf[:0], t.raw[:0], t.toks[:0], ""
	t.line, t.cur, t.eof, t.first, t.chars = 0, 1, false, false, 0
	t.hasBack, t.literal = false, false
}

// SkipUTF8Check makes the line fast path take lines without validating
// their UTF-8, for a caller that repairs the values it reads (type
// inference, which looks at few of them): a line that is not valid UTF-8
// is then split exactly as the rune-by-rune path splits it (delimiters,
// quotes, escapes and line ends are ASCII there, and an invalid byte is
// read as one U+FFFD, never with the bytes after it), but its values hold
// the invalid bytes where that path's hold one U+FFFD each: what
// string([]rune(value)) gives. Records are the same otherwise.
func (t *Tokenizer) SkipUTF8Check() { t.noUTF8 = true }

// UTF8Unchecked reports whether SkipUTF8Check was called.
func (t *Tokenizer) UTF8Unchecked() bool { return t.noUTF8 }

// Len is the number of values in the record.
func (t *Tokenizer) Len() int { return len(t.toks) }

// Token returns value i of the record.
func (t *Tokenizer) Token(i int) Token { return t.toks[i] }

// Bytes returns value i's text, a view valid until the next call of Next.
func (t *Tokenizer) Bytes(i int) []byte {
	tk := t.toks[i]
	if t.view {
		return t.raw[tk.Start:tk.End]
	}
	return t.buf[tk.Start:tk.End]
}

// Tokens returns the record's values and the text their offsets index
// (Bytes(i) is text[toks[i].Start:toks[i].End]): views valid until the
// next call of Next, for a caller that reads every value.
func (t *Tokenizer) Tokens() (toks []Token, text []byte) {
	if t.view {
		return t.toks, t.raw
	}
	return t.toks, t.buf
}

// Value returns a copy of value i's text.
func (t *Tokenizer) Value(i int) string { return string(t.Bytes(i)) }

// Raw is the record's text without its line end, a view valid until the
// next call of Next.
func (t *Tokenizer) Raw() []byte { return t.raw }

// Bad says why the record is malformed ("" when it is not).
func (t *Tokenizer) Bad() string { return t.bad }

// Line is the line the record starts on, from 1.
func (t *Tokenizer) Line() int64 { return t.line }

// Cur is the line the tokenizer is on, from 1.
func (t *Tokenizer) Cur() int64 { return t.cur }

// Mapped reports whether the source is read in place (a
// fileformat.Mapper): it then has no buffered reader.
func (t *Tokenizer) Mapped() bool { return t.in.mapped() }

// Buffered returns the tokenizer's buffered reader (to look ahead before
// the first record); nil when the source is read in place (Mapped).
func (t *Tokenizer) Buffered() *bufio.Reader { return t.in.br }

// SetBuffered replaces the buffered reader with br, which must give the
// same bytes from the same position (before the first record; not for a
// source read in place).
func (t *Tokenizer) SetBuffered(br *bufio.Reader) {
	if !t.in.mapped() {
		t.in.br = br
	}
	t.forget()
}
