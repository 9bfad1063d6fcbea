package fileformat

import (
	"bytes"
	"io"
	"testing"
)

// windowMapper is a Mapper whose windows are slices of data.
type windowMapper struct {
	*bytes.Reader
	data []byte
}

func (m windowMapper) MapAt(off int64, n int) ([]byte, error) {
	return m.data[min(int(off), len(m.data)):min(int(off)+n, len(m.data))], nil
}
func (windowMapper) Unmap() {}

// TestCountBytes: CountBytes keeps a Mapper and a SharedMapper one, and
// counts the bytes read, mapped, or mapped and then read from a Seek.
func TestCountBytes(t *testing.T) {
	data := bytes.Repeat([]byte("x"), 100)
	tests := []struct {
		name          string
		r             io.Reader
		do            func(c ByteCounter)
		want          int64
		mapper, share bool
	}{
		{"read", bytes.NewReader(data), func(c ByteCounter) { _, _ = io.ReadAll(c) }, 100, false, false},
		{"read part", bytes.NewReader(data), func(c ByteCounter) { _, _ = c.Read(make([]byte, 30)) }, 30, false, false},
		{"mapped", windowMapper{bytes.NewReader(data), data}, func(c ByteCounter) {
			m := c.(Mapper)
			_, _ = m.MapAt(0, 40)
			_, _ = m.MapAt(40, 40)
		}, 80, true, false},
		{"mapped past the end", windowMapper{bytes.NewReader(data), data}, func(c ByteCounter) { _, _ = c.(Mapper).MapAt(90, 40) }, 100, true, false},
		{"mapped then read from a seek", windowMapper{bytes.NewReader(data), data}, func(c ByteCounter) {
			m := c.(Mapper)
			_, _ = m.MapAt(0, 50)
			_, _ = m.Seek(20, io.SeekStart)
			_, _ = io.ReadAll(m)
		}, 100, true, false},
		{"mapped beyond what is read", windowMapper{bytes.NewReader(data), data}, func(c ByteCounter) {
			m := c.(Mapper)
			_, _ = m.MapAt(0, 60)
			_, _ = m.Seek(10, io.SeekStart)
			_, _ = m.Read(make([]byte, 5))
		}, 60, true, false},
		{"shared", fakeSharedMapper{fakeMapper{bytes.NewReader(data)}}, func(c ByteCounter) { _, _ = io.ReadAll(c) }, 100, true, true},
	}
	for _, tt := range tests {
		c := CountBytes(tt.r)
		_, m := c.(Mapper)
		_, s := c.(SharedMapper)
		if m != tt.mapper || s != tt.share {
			t.Errorf("%s: Mapper %v SharedMapper %v, want %v %v", tt.name, m, s, tt.mapper, tt.share)
			continue
		}
		tt.do(c)
		if got := c.Count(); got != tt.want {
			t.Errorf("%s: Count() = %d, want %d", tt.name, got, tt.want)
		}
	}
}
