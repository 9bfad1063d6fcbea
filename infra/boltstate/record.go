package boltstate

import (
	"bytes"
	"encoding/json"
	"math"
	"strconv"
	"time"
)

// A file's record is JSON (the layout in the package comment). Every
// registration, claim and plan reads or writes one record per file, so
// the common record is encoded and decoded here without reflection:
// encodeRecord writes what json.Marshal writes, and decodeRecord reads the
// layout it writes, giving json.Unmarshal anything else (records of other
// writers, escaped strings, non-canonical numbers or times), so that the
// result is always json.Unmarshal's.

// encodeRecord returns r's JSON, as json.Marshal(r) returns it.
func encodeRecord(r *record) ([]byte, error) {
	b := make([]byte, 0, 160+len(r.ETag)+len(r.SkipReason))
	b = append(b, `{"size":`...)
	b = strconv.AppendInt(b, r.Size, 10)
	b = append(b, `,"etag":`...)
	var ok bool
	if b, ok = appendPlain(b, r.ETag); !ok {
		return json.Marshal(r)
	}
	b = append(b, `,"mod_time":`...)
	if b, ok = appendTime(b, r.ModTime); !ok {
		return json.Marshal(r)
	}
	b = append(b, `,"discovery_time":`...)
	if b, ok = appendTime(b, r.Discovery); !ok {
		return json.Marshal(r)
	}
	b = append(b, `,"batch":`...)
	b = strconv.AppendInt(b, r.Batch, 10)
	if !r.ExpiresAt.IsZero() {
		b = append(b, `,"expires_at":`...)
		if b, ok = appendTime(b, r.ExpiresAt); !ok {
			return json.Marshal(r)
		}
	}
	if r.SkipReason != "" {
		b = append(b, `,"skip_reason":`...)
		if b, ok = appendPlain(b, r.SkipReason); !ok {
			return json.Marshal(r)
		}
	}
	return append(b, '}'), nil
}

// plainByte reports the bytes json.Marshal writes unescaped in a string
// (printable ASCII but for '"', '\\' and its HTML escapes).
func plainByte(c byte) bool {
	return c >= 0x20 && c < 0x7f && c != '"' && c != '\\' && c != '<' && c != '>' && c != '&'
}

// appendPlain appends s quoted if no byte of it needs escaping.
func appendPlain(b []byte, s string) ([]byte, bool) {
	for i := 0; i < len(s); i++ {
		if !plainByte(s[i]) {
			return b, false
		}
	}
	b = append(b, '"')
	b = append(b, s...)
	return append(b, '"'), true
}

// appendTime appends t as time.Time.MarshalJSON does, when it can.
func appendTime(b []byte, t time.Time) ([]byte, bool) {
	if y := t.Year(); y < 0 || y > 9999 {
		return b, false
	}
	b = append(b, '"')
	b = t.AppendFormat(b, time.RFC3339Nano)
	return append(b, '"'), true
}

// recordScanner reads the fields of encodeRecord's layout in order.
type recordScanner struct {
	v  []byte
	ok bool
}

// lit consumes s.
func (s *recordScanner) lit(lit string) {
	if s.ok && len(s.v) >= len(lit) && string(s.v[:len(lit)]) == lit {
		s.v = s.v[len(lit):]
		return
	}
	s.ok = false
}

// has consumes lit if the input continues with it.
func (s *recordScanner) has(lit string) bool {
	if s.ok && len(s.v) >= len(lit) && string(s.v[:len(lit)]) == lit {
		s.v = s.v[len(lit):]
		return true
	}
	return false
}

// int reads a canonical integer: one strconv.AppendInt writes (an
// optional '-', then no leading zero but for 0 itself, no "-0", within
// int64), without allocating.
func (s *recordScanner) int() int64 {
	if !s.ok {
		return 0
	}
	v := s.v
	i := 0
	neg := len(v) > 0 && v[0] == '-'
	if neg {
		i = 1
	}
	start := i
	var n uint64 // at most 19 digits: below 1e19 < 2^64
	for ; i < len(v) && v[i] >= '0' && v[i] <= '9'; i++ {
		if i-start == 19 {
			s.ok = false
			return 0
		}
		n = n*10 + uint64(v[i]-'0')
	}
	digits := i - start
	switch {
	case digits == 0, v[start] == '0' && (digits > 1 || neg),
		!neg && n > math.MaxInt64, neg && n > 1<<63:
		s.ok = false
		return 0
	}
	s.v = v[i:]
	if neg {
		return int64(-n) // -(1<<63) wraps to math.MinInt64
	}
	return int64(n)
}

// str reads a quoted string of plain bytes.
func (s *recordScanner) str() string {
	if !s.ok || len(s.v) == 0 || s.v[0] != '"' {
		s.ok = false
		return ""
	}
	for i := 1; i < len(s.v); i++ {
		c := s.v[i]
		if c == '"' {
			str := string(s.v[1:i])
			s.v = s.v[i+1:]
			return str
		}
		if !plainByte(c) {
			break
		}
	}
	s.ok = false
	return ""
}

// time reads a quoted time in the form appendTime writes.
func (s *recordScanner) time() time.Time {
	if s.ok && len(s.v) > 0 && s.v[0] == '"' {
		if end := bytes.IndexByte(s.v[1:], '"'); end >= 0 {
			if t, ok := parseUTC(s.v[1 : 1+end]); ok {
				s.v = s.v[end+2:]
				return t
			}
		}
	}
	str := s.str()
	if !s.ok {
		return time.Time{}
	}
	t, err := time.Parse(time.RFC3339Nano, str)
	var buf [64]byte // the canonical form, written here instead of allocated
	if err != nil || t.Year() < 0 || t.Year() > 9999 || string(t.AppendFormat(buf[:0], time.RFC3339Nano)) != str {
		s.ok = false
		return time.Time{}
	}
	return t
}

// parseUTC parses v if it is a UTC time as appendTime writes it
// (time.RFC3339Nano: "2006-01-02T15:04:05.999999999Z", the fraction
// without trailing zeros and left out when zero), as time.Parse would,
// without allocating or formatting the time again to see that v is in
// that form; false for anything else (which recordScanner.time leaves to
// time.Parse). Discovery and modification times are UTC wherever the
// process runs in UTC (Lambda's, containers'), and every record holds two.
func parseUTC(v []byte) (time.Time, bool) {
	n := len(v)
	if n < 20 || n > 30 || n == 21 || v[n-1] != 'Z' || v[4] != '-' || v[7] != '-' || v[10] != 'T' || v[13] != ':' || v[16] != ':' {
		return time.Time{}, false
	}
	ok := true
	two := func(i int) int {
		a, b := v[i]-'0', v[i+1]-'0'
		if a > 9 || b > 9 {
			ok = false
		}
		return int(a)*10 + int(b)
	}
	year := two(0)*100 + two(2)
	month, day := two(5), two(8)
	hour, minute, sec := two(11), two(14), two(17)
	if !ok || month < 1 || month > 12 || day < 1 || day > daysIn(month, year) || hour > 23 || minute > 59 || sec > 59 {
		return time.Time{}, false
	}
	nsec := 0
	if n > 20 {
		frac := v[20 : n-1] // 1 to 9 digits, the last not 0
		if v[19] != '.' || frac[len(frac)-1] == '0' {
			return time.Time{}, false
		}
		for _, c := range frac {
			if c-'0' > 9 {
				return time.Time{}, false
			}
			nsec = nsec*10 + int(c-'0')
		}
		for range 9 - len(frac) {
			nsec *= 10
		}
	}
	return time.Date(year, time.Month(month), day, hour, minute, sec, nsec, time.UTC), true
}

// daysIn is the number of days of month in year (proleptic Gregorian, as
// package time counts them).
func daysIn(month, year int) int {
	switch month {
	case 2:
		if year%4 == 0 && (year%100 != 0 || year%400 == 0) {
			return 29
		}
		return 28
	case 4, 6, 9, 11:
		return 30
	}
	return 31
}

// decodeRecord decodes a record as json.Unmarshal does.
func decodeRecord(v []byte, r *record) error {
	s := recordScanner{v: v, ok: true}
	var fast record
	s.lit(`{"size":`)
	fast.Size = s.int()
	s.lit(`,"etag":`)
	fast.ETag = s.str()
	s.lit(`,"mod_time":`)
	fast.ModTime = s.time()
	s.lit(`,"discovery_time":`)
	fast.Discovery = s.time()
	s.lit(`,"batch":`)
	fast.Batch = s.int()
	if s.has(`,"expires_at":`) {
		fast.ExpiresAt = s.time()
	}
	if s.has(`,"skip_reason":`) {
		fast.SkipReason = s.str()
	}
	s.lit(`}`)
	if s.ok && len(s.v) == 0 {
		*r = fast
		return nil
	}
	*r = record{}
	return json.Unmarshal(v, r)
}

// claimInPlace returns the record v (as stored) moved into batch, with its
// discovery time, when v is a pending record in encodeRecord's layout
// (batch -1, no skip reason): v with its batch's digits replaced, which
// is what encoding the decoded record with the new batch writes, without
// decoding the rest (its etag) or formatting its times again. false for
// anything else, which a claim decodes whole.
func claimInPlace(v []byte, batch int64) (nv []byte, discovery time.Time, ok bool) {
	s := recordScanner{v: v, ok: true}
	s.lit(`{"size":`)
	s.int()
	s.lit(`,"etag":`)
	s.plain()
	s.lit(`,"mod_time":`)
	s.time()
	s.lit(`,"discovery_time":`)
	discovery = s.time()
	s.lit(`,"batch":`)
	at := len(v) - len(s.v) // where the batch's digits start
	s.lit(`-1`)
	rest := len(v) - len(s.v) // what follows them
	if s.has(`,"expires_at":`) {
		s.time()
	}
	s.lit(`}`)
	if !s.ok || len(s.v) != 0 {
		return nil, time.Time{}, false
	}
	nv = make([]byte, 0, len(v)+19)
	nv = append(nv, v[:at]...)
	nv = strconv.AppendInt(nv, batch, 10)
	return append(nv, v[rest:]...), discovery, true
}

// plain consumes a quoted string of plain bytes (str, without making the
// string).
func (s *recordScanner) plain() {
	if !s.ok || len(s.v) == 0 || s.v[0] != '"' {
		s.ok = false
		return
	}
	for i := 1; i < len(s.v); i++ {
		c := s.v[i]
		if c == '"' {
			s.v = s.v[i+1:]
			return
		}
		if !plainByte(c) {
			break
		}
	}
	s.ok = false
}
