package csvfmt

import (
	"time"

	"github.com/tributary-io/tributary/core/formats/fileformat"
)

// defaultTimestamps reports whether a timestamp (not timestamp_ntz) value
// is read by fileformat.ParseTimestamp alone: no timestampFormat, the
// time zone UTC (Datetime.ParseTimestamp then comes down to it).
func (o *Options) defaultTimestamps() bool {
	p := o.Datetime
	return p == nil || (p.Timestamp == nil && (p.Zone == nil || p.Zone == time.UTC))
}

// timestampMicros is the timestamp (ntz false) or timestamp_ntz
// conversion as microseconds since the epoch: fileformat.ISOMicros for the common
// form under the default parsing (defaultTimestamps), else Datetime.ParseTimestamp.
func (o *Options) timestampMicros(s string, ntz bool) (int64, bool) {
	if !ntz && o.defaultTimestamps() {
		if v, ok := fileformat.ISOMicros(s); ok {
			return v, true
		}
	}
	t, ok := o.Datetime.ParseTimestamp(s, ntz)
	if !ok {
		return 0, false
	}
	return t.UnixMicro(), true
}
