// Package charset resolves the encoding option of Tributary's text
// formats (Spark's "encoding", alias "charset") and decodes files to UTF-8.
//
// Names are Java charset names, compared case-insensitively, as Spark takes
// them: canonical names (UTF-8, US-ASCII, ISO-8859-1, UTF-16LE, UTF-32BE,
// windows-1252, Shift_JIS, ...), Java's usual aliases (latin1, cp1252,
// ISO8859_1, UnicodeLittleUnmarked, ...) and whatever else the IANA
// registry names (golang.org/x/text/encoding/ianaindex). Bytes that are not
// valid in the charset decode to U+FFFD, as Java's decoders replace them.
package charset

import (
	"errors"
	"fmt"
	"io"
	"strings"

	"golang.org/x/text/encoding"
	"golang.org/x/text/encoding/charmap"
	"golang.org/x/text/encoding/ianaindex"
	"golang.org/x/text/encoding/unicode"
	"golang.org/x/text/encoding/unicode/utf32"
	"golang.org/x/text/transform"
)

// ErrUnknown is wrapped by Lookup for a name that is not a supported
// charset.
var ErrUnknown = errors.New("unknown charset")

// Charset is a resolved charset.
type Charset struct {
	name string
	enc  encoding.Encoding // nil: UTF-8, read as is
	bom  bool              // byte order taken from a byte order mark
}

// UTF8 is the default charset.
var UTF8 = &Charset{name: "UTF-8"}

// Name is the charset's canonical (Java) name.
func (c *Charset) Name() string { return c.name }

// IsUTF8 reports whether c is UTF-8.
func (c *Charset) IsUTF8() bool { return c.enc == nil }

// ByteOrderMark reports whether c is UTF-16 or UTF-32 without a byte order
// in its name: the order then comes from a byte order mark at the start of
// the input, which Spark refuses for line-by-line reading.
func (c *Charset) ByteOrderMark() bool { return c.bom }

// NewReader returns a reader of r's content decoded from c to UTF-8 (r
// itself for UTF-8).
func (c *Charset) NewReader(r io.Reader) io.Reader {
	if c.enc == nil {
		return r
	}
	return transform.NewReader(r, c.enc.NewDecoder())
}

// Encode returns s encoded in c (invalid characters become the charset's
// replacement), for tests and for writing samples.
func (c *Charset) Encode(s string) ([]byte, error) {
	if c.enc == nil {
		return []byte(s), nil
	}
	return c.enc.NewEncoder().Bytes([]byte(s))
}

// known are the charsets Tributary names itself, by canonical Java name.
var known = map[string]*Charset{
	"UTF-8":        UTF8,
	"US-ASCII":     {name: "US-ASCII", enc: asciiEncoding()},
	"ISO-8859-1":   {name: "ISO-8859-1", enc: charmap.ISO8859_1},
	"UTF-16":       {name: "UTF-16", enc: unicode.UTF16(unicode.BigEndian, unicode.UseBOM), bom: true},
	"UTF-16BE":     {name: "UTF-16BE", enc: unicode.UTF16(unicode.BigEndian, unicode.IgnoreBOM)},
	"UTF-16LE":     {name: "UTF-16LE", enc: unicode.UTF16(unicode.LittleEndian, unicode.IgnoreBOM)},
	"UTF-32":       {name: "UTF-32", enc: utf32.UTF32(utf32.BigEndian, utf32.UseBOM), bom: true},
	"UTF-32BE":     {name: "UTF-32BE", enc: utf32.UTF32(utf32.BigEndian, utf32.IgnoreBOM)},
	"UTF-32LE":     {name: "UTF-32LE", enc: utf32.UTF32(utf32.LittleEndian, utf32.IgnoreBOM)},
	"windows-1252": {name: "windows-1252", enc: charmap.Windows1252},
}

// aliases maps Java's aliases (lower case) to canonical names.
var aliases = map[string]string{
	"utf8": "UTF-8", "unicode-1-1-utf-8": "UTF-8",
	"ascii": "US-ASCII", "us": "US-ASCII", "iso646-us": "US-ASCII", "ascii7": "US-ASCII", "646": "US-ASCII",
	"default": "US-ASCII", "iso_646.irv:1983": "US-ASCII", "iso_646.irv:1991": "US-ASCII",
	"ansi_x3.4-1968": "US-ASCII", "ansi_x3.4-1986": "US-ASCII", "iso-ir-6": "US-ASCII",
	"ibm367": "US-ASCII", "cp367": "US-ASCII", "csascii": "US-ASCII",
	"latin1": "ISO-8859-1", "l1": "ISO-8859-1", "ibm819": "ISO-8859-1", "ibm-819": "ISO-8859-1", "cp819": "ISO-8859-1",
	"819": "ISO-8859-1", "csisolatin1": "ISO-8859-1", "iso-ir-100": "ISO-8859-1", "iso_8859-1:1987": "ISO-8859-1",
	"utf_16": "UTF-16", "utf16": "UTF-16", "unicode": "UTF-16", "unicodebig": "UTF-16",
	"utf_16be": "UTF-16BE", "x-utf-16be": "UTF-16BE", "iso-10646-ucs-2": "UTF-16BE", "unicodebigunmarked": "UTF-16BE",
	"utf_16le": "UTF-16LE", "x-utf-16le": "UTF-16LE", "unicodelittleunmarked": "UTF-16LE",
	"utf_32": "UTF-32", "utf32": "UTF-32",
	"utf_32be": "UTF-32BE", "x-utf-32be": "UTF-32BE",
	"utf_32le": "UTF-32LE", "x-utf-32le": "UTF-32LE",
	"cp5348": "windows-1252", "ibm-1252": "windows-1252", "ibm1252": "windows-1252",
	"cp5347": "windows-1251", "ansi-1251": "windows-1251",
	"sjis": "Shift_JIS", "shift_jis": "Shift_JIS", "x-sjis": "Shift_JIS", "ms_kanji": "Shift_JIS", "csshiftjis": "Shift_JIS",
	"eucjis": "EUC-JP", "x-eucjp": "EUC-JP", "eucjp": "EUC-JP", "euc_jp": "EUC-JP",
	"cp936": "GBK", "windows-936": "GBK",
	"ksc5601": "EUC-KR", "euckr": "EUC-KR", "euc_kr": "EUC-KR", "ks_c_5601-1987": "EUC-KR", "5601": "EUC-KR",
	"koi8_r": "KOI8-R", "koi8": "KOI8-R", "cskoi8r": "KOI8-R",
}

// Lookup resolves a charset name (case-insensitive, surrounding spaces
// ignored). An unknown or unsupported name wraps ErrUnknown.
func Lookup(name string) (*Charset, error) {
	n := strings.TrimSpace(name)
	lower := strings.ToLower(n)
	canon := n
	if a, ok := aliases[lower]; ok {
		canon = a
	} else if c, ok := javaPattern(lower); ok {
		canon = c
	}
	for k, c := range known {
		if strings.EqualFold(k, canon) {
			return c, nil
		}
	}
	enc, err := ianaindex.IANA.Encoding(canon)
	if err != nil || enc == nil {
		return nil, fmt.Errorf("%w %q: want a Java charset name such as UTF-8, ISO-8859-1, windows-1252, UTF-16LE or UTF-32BE", ErrUnknown, n)
	}
	if iana, err := ianaindex.IANA.Name(enc); err == nil {
		if c, ok := known[iana]; ok { // e.g. an IANA alias of ISO-8859-1
			return c, nil
		}
	}
	if enc == unicode.UTF8 {
		return UTF8, nil
	}
	return &Charset{name: canon, enc: enc}, nil
}

// javaPattern maps Java's numbered aliases: cp1250..cp1258 (windows-125x)
// and ISO8859_N / ISO8859-N / 8859_N / ISO_8859-N (ISO-8859-N).
func javaPattern(lower string) (string, bool) {
	if d, ok := strings.CutPrefix(lower, "cp125"); ok && len(d) == 1 && d[0] >= '0' && d[0] <= '8' {
		return "windows-125" + d, true
	}
	for _, p := range []string{"iso8859_", "iso8859-", "8859_", "iso_8859-", "iso_8859_"} {
		if d, ok := strings.CutPrefix(lower, p); ok && d != "" && strings.Trim(d, "0123456789") == "" {
			return "ISO-8859-" + d, true
		}
	}
	return "", false
}

// asciiEncoding is US-ASCII: bytes above 0x7F are not characters.
func asciiEncoding() encoding.Encoding {
	enc, err := ianaindex.IANA.Encoding("US-ASCII")
	if err != nil || enc == nil {
		return charmap.Windows1252 // unreachable: x/text knows US-ASCII
	}
	return enc
}
