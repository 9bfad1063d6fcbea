// Package hivepart provides Hive-style partition directories and Delta
// partition values: a directory value parsed as its column's type into
// Delta's partition value form, a row value written in that form, the
// escaping of names and values in directory names, and the types a
// partition column can have.
package hivepart

import (
	"errors"
	"fmt"
	"math/big"
	"strconv"
	"strings"
	"time"

	"github.com/tributary-io/tributary/core/formats/fileformat"
	"github.com/tributary-io/tributary/core/schema"
)

// DefaultPartition is the directory value Hive writes for a null
// partition value.
const DefaultPartition = "__HIVE_DEFAULT_PARTITION__"

// ErrBadValue marks a partition directory value that does not
// parse as its column's type.
var ErrBadValue = errors.New("value does not parse as the column's type")

// Value parses a directory value as a partition column's type
// and returns it in Delta's partition value form (protocol "Partition
// Value Serialization"): numbers and booleans as written by Spark, dates
// yyyy-MM-dd, timestamps as UTC ISO-8601 with microseconds and Z (as
// delta-spark writes them), timestamp_ntz yyyy-MM-dd HH:mm:ss.SSSSSS.
func Value(t schema.Type, v string) (string, error) {
	bad := fmt.Errorf("%w: %q is not a %s", ErrBadValue, v, schema.DDLType(t))
	switch t := t.(type) {
	case schema.DecimalType:
		d, ok := fileformat.ParseDecimal(v, t)
		if !ok {
			return "", bad
		}
		return decimalString(d), nil
	case schema.PrimitiveType:
		switch t {
		case schema.String:
			return v, nil
		case schema.Byte, schema.Short, schema.Integer, schema.Long:
			n, ok := fileformat.ParseIntegral(t, strings.TrimSpace(v))
			if !ok {
				return "", bad
			}
			return fmt.Sprint(n), nil
		case schema.Double, schema.Float:
			bits := 64
			if t == schema.Float {
				bits = 32
			}
			f, err := strconv.ParseFloat(strings.TrimSpace(v), bits)
			if err != nil {
				return "", bad
			}
			return strconv.FormatFloat(f, 'g', -1, bits), nil
		case schema.Boolean:
			switch strings.ToLower(strings.TrimSpace(v)) {
			case "true":
				return "true", nil
			case "false":
				return "false", nil
			}
			return "", bad
		case schema.DateType:
			d, ok := fileformat.ParseDate(v)
			if !ok {
				return "", bad
			}
			return time.Unix(int64(d)*86400, 0).UTC().Format("2006-01-02"), nil
		case schema.Timestamp:
			ts, ok := fileformat.ParseTimestamp(v, false)
			if !ok {
				return "", bad
			}
			return ts.UTC().Format("2006-01-02T15:04:05.000000Z"), nil
		case schema.TimestampNTZ:
			ts, ok := fileformat.ParseTimestamp(v, true)
			if !ok {
				return "", bad
			}
			return ts.Format("2006-01-02 15:04:05.000000"), nil
		}
	}
	return "", fmt.Errorf("partition columns cannot be %s", schema.DDLType(t))
}

// Escape escapes a partition name or value for a directory
// name the way Hive and Spark do: %XX for control characters and
// "#%'*/:=?\{[]^ (spaces and other characters are kept).
func Escape(s string) string {
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c < 0x20 || c == 0x7f || strings.IndexByte("\"#%'*/:=?\\{[]^", c) >= 0 {
			fmt.Fprintf(&b, "%%%02X", c)
			continue
		}
		b.WriteByte(c)
	}
	return b.String()
}

// Format serialises a row value as a Delta partition value (false:
// NULL), in the forms Value writes.
func Format(t schema.Type, v any) (string, bool) {
	switch x := v.(type) {
	case nil:
		return "", false
	case string:
		if x == "" {
			return "", false // Spark writes an empty string partition as NULL
		}
		return x, true
	case bool:
		return strconv.FormatBool(x), true
	case int8, int16, int32, int64, int:
		return fmt.Sprint(x), true
	case float32:
		return strconv.FormatFloat(float64(x), 'g', -1, 32), true
	case float64:
		return strconv.FormatFloat(x, 'g', -1, 64), true
	case schema.Date:
		return time.Unix(int64(x)*86400, 0).UTC().Format("2006-01-02"), true
	case schema.Decimal:
		return decimalString(x), true
	case time.Time:
		if schema.EqualType(t, schema.TimestampNTZ) {
			return x.Format("2006-01-02 15:04:05.000000"), true
		}
		return x.UTC().Format("2006-01-02T15:04:05.000000Z"), true
	}
	return fmt.Sprint(v), true
}

// Supported reports whether a partition value can carry type t.
func Supported(t schema.Type) bool {
	switch t := t.(type) {
	case schema.DecimalType:
		return true
	case schema.PrimitiveType:
		switch t {
		case schema.String, schema.Byte, schema.Short, schema.Integer, schema.Long, schema.Float, schema.Double,
			schema.Boolean, schema.DateType, schema.Timestamp, schema.TimestampNTZ:
			return true
		}
	}
	return false
}

// decimalString writes a decimal with its scale's digits ("-1.50").
func decimalString(d schema.Decimal) string {
	digits := new(big.Int).Abs(d.Unscaled).String()
	sign := ""
	if d.Unscaled.Sign() < 0 {
		sign = "-"
	}
	if d.Scale <= 0 {
		return sign + digits
	}
	for len(digits) <= d.Scale {
		digits = "0" + digits
	}
	return sign + digits[:len(digits)-d.Scale] + "." + digits[len(digits)-d.Scale:]
}
