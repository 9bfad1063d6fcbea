package ingest

import (
	"errors"
	"fmt"
	"math/big"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/tributary-io/tributary/core/formats/fileformat"
	"github.com/tributary-io/tributary/core/options"

	"github.com/tributary-io/tributary/core/schema"
)

// errMissingPartition marks a file whose path lacks a partition column.
var errMissingPartition = errors.New("path lacks a partition value")

// hiveDefaultPartition is the directory value Hive writes for null.
const hiveDefaultPartition = "__HIVE_DEFAULT_PARTITION__"

// partition is the Hive-style partition of one input file.
type partition struct {
	// dir is the table directory of its data files ("" or "k=v/k2=v2/").
	dir string
	// values are the partition values by column, in Delta's partition
	// value form; nil is null.
	values map[string]*string
}

// partitionOf reads cloudFiles.partitionColumns from a source path's
// Hive-style key=value directories (values URL-unescaped, as Hive escapes
// them). An empty value and __HIVE_DEFAULT_PARTITION__ are null, as in
// Spark. A typed column's value must parse as its type (Spark's
// spark.sql.sources.validatePartitionColumns); a file whose path lacks a
// column's directory, or has a value that does not parse, is skipped with
// the reason rather than given an invented value.
func (e *Engine) partitionOf(path string) (partition, error) {
	cols := e.Config.PartitionColumns
	if len(cols) == 0 {
		return partition{values: map[string]*string{}}, nil
	}
	found := map[string]string{}
	segs := strings.Split(path, "/")
	for _, seg := range segs[:len(segs)-1] {
		k, v, ok := strings.Cut(seg, "=")
		if !ok {
			continue
		}
		if uv, err := url.PathUnescape(v); err == nil {
			v = uv // Hive escapes special characters as %XX
		}
		for _, c := range cols {
			if strings.EqualFold(k, c) {
				found[c] = v
			}
		}
	}
	p := partition{values: make(map[string]*string, len(cols))}
	var dir strings.Builder
	for _, c := range cols {
		v, ok := found[c]
		if !ok {
			return partition{}, fmt.Errorf("%w: %s has no %s=<value> directory", errMissingPartition, path, c)
		}
		if v == "" || v == hiveDefaultPartition {
			p.values[c] = nil
			dir.WriteString(escapePartitionPath(c) + "=" + hiveDefaultPartition + "/")
			continue
		}
		if t, typed := e.Config.PartitionTypes[c]; typed {
			norm, err := partitionValue(t, v)
			if err != nil {
				return partition{}, fmt.Errorf("%w: %s: partition column %s: %w", errMissingPartition, path, c, err)
			}
			v = norm
		}
		p.values[c] = &v
		dir.WriteString(escapePartitionPath(c) + "=" + escapePartitionPath(v) + "/")
	}
	p.dir = dir.String()
	return p, nil
}

// errBadPartitionValue marks a partition directory value that does not
// parse as its column's type.
var errBadPartitionValue = errors.New("value does not parse as the column's type")

// partitionValue parses a directory value as a partition column's type
// and returns it in Delta's partition value form (protocol "Partition
// Value Serialization"): numbers and booleans as written by Spark, dates
// yyyy-MM-dd, timestamps as UTC ISO-8601 with microseconds and Z (as
// delta-spark writes them), timestamp_ntz yyyy-MM-dd HH:mm:ss.SSSSSS.
func partitionValue(t schema.Type, v string) (string, error) {
	bad := fmt.Errorf("%w: %q is not a %s", errBadPartitionValue, v, schema.DDLType(t))
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

// partitionTypes are the partition columns' types given by
// cloudFiles.schemaHints or the user schema (a column named by neither is
// STRING). Types a partition value cannot carry (binary, nested) are
// refused naming the option.
func partitionTypes(s *options.Stream, cols []string) (map[string]schema.Type, error) {
	if len(cols) == 0 {
		return nil, nil
	}
	out := map[string]schema.Type{}
	for _, src := range []struct{ option, ddl string }{{"cloudFiles.schemaHints", s.CloudFiles.SchemaHints}, {"schema", s.UserSchema}} {
		if src.ddl == "" {
			continue
		}
		hints, err := schema.ParseDDL(src.ddl)
		if err != nil {
			return nil, fmt.Errorf("stream %q: option %s: %w", s.ID, src.option, err)
		}
		for _, h := range hints {
			for _, c := range cols {
				if len(h.Path) != 1 || !strings.EqualFold(h.Path[0], c) {
					continue
				}
				if _, err := partitionValue(h.Type, ""); errors.Is(err, errBadPartitionValue) || schema.EqualType(h.Type, schema.String) {
					out[c] = h.Type
					continue
				}
				return nil, fmt.Errorf("stream %q: option %s types partition column %s as %s: a partition column is STRING, a number, BOOLEAN, DATE, TIMESTAMP, TIMESTAMP_NTZ or DECIMAL", s.ID, src.option, c, schema.DDLType(h.Type))
			}
		}
	}
	return out, nil
}

// escapePartitionPath escapes a partition name or value for a directory
// name the way Hive and Spark do: %XX for control characters and
// "#%'*/:=?\{[]^ (spaces and other characters are kept).
func escapePartitionPath(s string) string {
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

// dataSchema is the table schema without the partition columns: what the
// input files hold and the Parquet files store.
func (e *Engine) dataSchema(table *schema.StructType) *schema.StructType {
	if len(e.Config.PartitionColumns) == 0 {
		return table
	}
	out := &schema.StructType{}
	for _, f := range table.Fields {
		if !e.isPartitionColumn(f.Name) {
			out.Fields = append(out.Fields, f)
		}
	}
	return out
}

// withPartitions appends the partition columns (STRING unless typed by
// Config.PartitionTypes) to a data schema.
func (e *Engine) withPartitions(data *schema.StructType) *schema.StructType {
	if len(e.Config.PartitionColumns) == 0 {
		return data
	}
	out := e.dataSchema(data).Clone()
	for _, c := range e.Config.PartitionColumns {
		var t schema.Type = schema.String
		if pt, ok := e.Config.PartitionTypes[c]; ok {
			t = pt
		}
		out.Fields = append(out.Fields, schema.Field{Name: c, Type: t, Nullable: true})
	}
	return out
}

func (e *Engine) isPartitionColumn(name string) bool {
	for _, c := range e.Config.PartitionColumns {
		if strings.EqualFold(c, name) {
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
