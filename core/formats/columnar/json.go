package columnar

import (
	"encoding/base64"
	"fmt"
	"math"
	"math/big"
	"strconv"
	"strings"
	"time"

	"github.com/tributary-io/tributary/core/formats/fileformat"
	"github.com/tributary-io/tributary/core/schema"
)

// AppendValueJSON appends v, a value of type t in the row representation
// of package schema, as JSON the way Spark's to_json renders it in the
// rescued data column: numbers as numbers (NaN and infinities as strings),
// decimals exactly, binary as base64, dates as "yyyy-MM-dd", timestamps
// as "yyyy-MM-ddTHH:mm:ss.SSSSSSZ" (timestamp_ntz without the zone),
// structs as objects, maps as objects keyed by the key's text.
func AppendValueJSON(dst []byte, v any, t schema.Type) []byte {
	if v == nil {
		return append(dst, "null"...)
	}
	switch x := v.(type) {
	case string:
		return fileformat.AppendJSONString(dst, x)
	case bool:
		return strconv.AppendBool(dst, x)
	case int8:
		return strconv.AppendInt(dst, int64(x), 10)
	case int16:
		return strconv.AppendInt(dst, int64(x), 10)
	case int32:
		return strconv.AppendInt(dst, int64(x), 10)
	case int64:
		return strconv.AppendInt(dst, x, 10)
	case float32:
		return appendFloat(dst, float64(x), 32)
	case float64:
		return appendFloat(dst, x, 64)
	case []byte:
		return fileformat.AppendJSONString(dst, base64.StdEncoding.EncodeToString(x))
	case schema.Date:
		return fileformat.AppendJSONString(dst, time.Unix(int64(x)*86400, 0).UTC().Format("2006-01-02"))
	case time.Time:
		layout := "2006-01-02T15:04:05.000000Z07:00"
		if t == schema.TimestampNTZ {
			layout = "2006-01-02T15:04:05.000000"
		}
		return fileformat.AppendJSONString(dst, x.UTC().Format(layout))
	case schema.Decimal:
		return append(dst, DecimalString(x)...)
	case []any:
		switch tt := t.(type) {
		case *schema.StructType:
			dst = append(dst, '{')
			for i, f := range tt.Fields {
				if i >= len(x) {
					break
				}
				if i > 0 {
					dst = append(dst, ',')
				}
				dst = fileformat.AppendJSONString(dst, f.Name)
				dst = append(dst, ':')
				dst = AppendValueJSON(dst, x[i], f.Type)
			}
			return append(dst, '}')
		case *schema.ArrayType:
			dst = append(dst, '[')
			for i, e := range x {
				if i > 0 {
					dst = append(dst, ',')
				}
				dst = AppendValueJSON(dst, e, tt.Element)
			}
			return append(dst, ']')
		}
	case []schema.MapEntry:
		var kt, vt schema.Type
		if mt, ok := t.(*schema.MapType); ok {
			kt, vt = mt.Key, mt.Value
		}
		dst = append(dst, '{')
		for i, e := range x {
			if i > 0 {
				dst = append(dst, ',')
			}
			k := string(AppendValueJSON(nil, e.Key, kt))
			if !strings.HasPrefix(k, `"`) {
				k = strconv.Quote(k)
			}
			dst = append(dst, k...)
			dst = append(dst, ':')
			dst = AppendValueJSON(dst, e.Value, vt)
		}
		return append(dst, '}')
	}
	return fileformat.AppendJSONString(dst, fmt.Sprint(v))
}

func appendFloat(dst []byte, f float64, bits int) []byte {
	switch {
	case math.IsNaN(f):
		return append(dst, `"NaN"`...)
	case math.IsInf(f, 1):
		return append(dst, `"Infinity"`...)
	case math.IsInf(f, -1):
		return append(dst, `"-Infinity"`...)
	}
	start := len(dst)
	dst = strconv.AppendFloat(dst, f, 'g', -1, bits)
	if !strings.ContainsAny(string(dst[start:]), ".eE") {
		dst = append(dst, '.', '0')
	}
	return dst
}

// DecimalString renders d exactly, with Scale digits after the point.
func DecimalString(d schema.Decimal) string {
	u := d.Unscaled
	if u == nil {
		u = new(big.Int)
	}
	s := new(big.Int).Abs(u).String()
	neg := u.Sign() < 0
	if d.Scale > 0 {
		if len(s) <= d.Scale {
			s = strings.Repeat("0", d.Scale-len(s)+1) + s
		}
		s = s[:len(s)-d.Scale] + "." + s[len(s)-d.Scale:]
	} else if d.Scale < 0 {
		s += strings.Repeat("0", -d.Scale)
	}
	if neg {
		s = "-" + s
	}
	return s
}
