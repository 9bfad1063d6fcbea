package batchplan

import (
	"encoding/json"
	"strconv"
	"time"
)

// encodePlan returns json.Marshal(p). A plan names every file of its batch
// (10,000 on a run over many small files), and Seal writes it before the
// batch starts: the common plan — plain ASCII strings, times json.Marshal
// can write — is written here without reflection; any other goes to
// json.Marshal.
func encodePlan(p *Plan) ([]byte, error) {
	if b, ok := appendPlan(make([]byte, 0, 128+96*len(p.Files)), p); ok {
		return b, nil
	}
	return json.Marshal(p)
}

// appendPlan appends p as json.Marshal writes it; ok is false when a
// string needs escaping or a time is one Time.MarshalJSON refuses.
func appendPlan(b []byte, p *Plan) (_ []byte, ok bool) {
	b = append(b, `{"batchId":`...)
	b = strconv.AppendInt(b, p.BatchID, 10)
	b = append(b, `,"stream":`...)
	if b, ok = appendPlain(b, p.Stream); !ok {
		return b, false
	}
	b = append(b, `,"createdAt":`...)
	if b, ok = appendTime(b, p.CreatedAt); !ok {
		return b, false
	}
	b = append(b, `,"files":`...)
	if p.Files == nil {
		b = append(b, "null"...)
	} else {
		b = append(b, '[')
		for i, f := range p.Files {
			if i > 0 {
				b = append(b, ',')
			}
			b = append(b, `{"path":`...)
			if b, ok = appendPlain(b, f.Path); !ok {
				return b, false
			}
			b = append(b, `,"size":`...)
			b = strconv.AppendInt(b, f.Size, 10)
			if f.ETag != "" {
				b = append(b, `,"etag":`...)
				if b, ok = appendPlain(b, f.ETag); !ok {
					return b, false
				}
			}
			if !f.ModTime.IsZero() {
				b = append(b, `,"modTime":`...)
				if b, ok = appendTime(b, f.ModTime); !ok {
					return b, false
				}
			}
			b = append(b, '}')
		}
		b = append(b, ']')
	}
	return append(b, '}'), true
}

// appendPlain appends s quoted when no byte of it needs escaping in
// json.Marshal's output (printable ASCII but '"', '\\' and the HTML
// escapes '<', '>', '&').
func appendPlain(b []byte, s string) ([]byte, bool) {
	for i := 0; i < len(s); i++ {
		if c := s[i]; c < 0x20 || c >= 0x7f || c == '"' || c == '\\' || c == '<' || c == '>' || c == '&' {
			return b, false
		}
	}
	b = append(b, '"')
	b = append(b, s...)
	return append(b, '"'), true
}

// appendTime appends t quoted as Time.MarshalJSON writes it, refusing
// what it refuses: a year outside [0,9999] (not exactly four digits) or a
// zone offset of 24 hours or more.
func appendTime(b []byte, t time.Time) ([]byte, bool) {
	b = append(b, '"')
	n0 := len(b)
	b = t.AppendFormat(b, time.RFC3339Nano)
	if len(b) < n0+len("2006-01-02T15:04:05Z") || b[n0+4] != '-' {
		return b, false
	}
	if b[len(b)-1] != 'Z' {
		c := b[len(b)-len("Z07:00")]
		h := b[len(b)-len("07:00"):]
		if '0' <= c && c <= '9' || 10*(h[0]-'0')+(h[1]-'0') >= 24 {
			return b, false
		}
	}
	return append(b, '"'), true
}
