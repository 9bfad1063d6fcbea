package parquetio

import (
	"bytes"
	"fmt"
	"math"
	"math/big"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/tributary-io/tributary/core/schema"
)

// gen produces random schemas and rows from a fixed seed.
type gen struct{ r *rand.Rand }

var primitives = []schema.PrimitiveType{
	schema.String, schema.Long, schema.Integer, schema.Short, schema.Byte, schema.Double,
	schema.Float, schema.Boolean, schema.Binary, schema.DateType, schema.Timestamp, schema.TimestampNTZ,
}

func (g gen) typ(depth int) schema.Type {
	k := g.r.IntN(10)
	if depth >= 3 {
		k = g.r.IntN(7)
	}
	switch {
	case k < 6:
		return primitives[g.r.IntN(len(primitives))]
	case k == 6:
		p := 1 + g.r.IntN(38)
		return schema.DecimalType{Precision: p, Scale: g.r.IntN(p + 1)}
	case k == 7:
		return g.structType(depth+1, 1+g.r.IntN(4))
	case k == 8:
		return &schema.ArrayType{Element: g.typ(depth + 1), ContainsNull: g.r.IntN(2) == 0}
	default:
		keys := []schema.Type{schema.String, schema.Long, schema.Integer, schema.DateType}
		return &schema.MapType{Key: keys[g.r.IntN(len(keys))], Value: g.typ(depth + 1), ValueContainsNull: g.r.IntN(2) == 0}
	}
}

func (g gen) structType(depth, n int) *schema.StructType {
	st := &schema.StructType{}
	for i := range n {
		// Names out of alphabetical order, to catch reordering.
		name := fmt.Sprintf("%c%d", 'z'-rune(g.r.IntN(26)), i)
		st.Fields = append(st.Fields, schema.Field{Name: name, Type: g.typ(depth), Nullable: g.r.IntN(4) != 0})
	}
	return st
}

func (g gen) value(t schema.Type, nullable bool) any {
	if nullable && g.r.IntN(5) == 0 {
		return nil
	}
	switch t := t.(type) {
	case schema.PrimitiveType:
		switch t {
		case schema.String:
			runes := []rune("aZ09 é€🎉\x00\x7f")
			b := make([]rune, g.r.IntN(40))
			for i := range b {
				b[i] = runes[g.r.IntN(len(runes))]
			}
			return string(b)
		case schema.Long:
			return int64(g.r.Uint64())
		case schema.Integer:
			return int32(g.r.Uint32())
		case schema.Short:
			return int16(g.r.Uint32())
		case schema.Byte:
			return int8(g.r.Uint32())
		case schema.Double:
			switch g.r.IntN(20) {
			case 0:
				return math.NaN()
			case 1:
				return math.Copysign(0, float64(g.r.IntN(2)*2-1)) // ±0: equal extremes
			}
			return g.r.NormFloat64() * 1e6
		case schema.Float:
			switch g.r.IntN(20) {
			case 0:
				return float32(math.NaN())
			case 1:
				return float32(math.Copysign(0, float64(g.r.IntN(2)*2-1)))
			}
			return float32(g.r.NormFloat64())
		case schema.Boolean:
			return g.r.IntN(2) == 0
		case schema.Binary:
			b := make([]byte, g.r.IntN(20))
			for i := range b {
				b[i] = byte(g.r.Uint32())
			}
			return b
		case schema.DateType:
			return schema.Date(g.r.IntN(3652059) - 719162)
		case schema.Timestamp, schema.TimestampNTZ:
			return time.UnixMicro(g.r.Int64N(253402300800000000+62135596800000000) - 62135596800000000).UTC()
		}
	case schema.DecimalType:
		digits := g.r.IntN(t.Precision + 1)
		u := new(big.Int)
		for range digits {
			u.Mul(u, big.NewInt(10))
			u.Add(u, big.NewInt(int64(g.r.IntN(10))))
		}
		if g.r.IntN(2) == 0 {
			u.Neg(u)
		}
		return schema.Decimal{Unscaled: u, Scale: t.Scale}
	case *schema.StructType:
		out := make([]any, len(t.Fields))
		for i, f := range t.Fields {
			out[i] = g.value(f.Type, f.Nullable)
		}
		return out
	case *schema.ArrayType:
		out := make([]any, g.r.IntN(4))
		for i := range out {
			out[i] = g.value(t.Element, t.ContainsNull)
		}
		return out
	case *schema.MapType:
		out := make([]schema.MapEntry, g.r.IntN(4))
		for i := range out {
			out[i] = schema.MapEntry{Key: g.value(t.Key, false), Value: g.value(t.Value, t.ValueContainsNull)}
		}
		return out
	}
	panic(fmt.Sprintf("no generator for %v", t))
}

// TestRandomRoundTrip writes random schemas and rows (fixed seeds) and
// requires both pqarrow and ReadFile to return the input.
func TestRandomRoundTrip(t *testing.T) {
	for seed := range uint64(60) {
		g := gen{rand.New(rand.NewPCG(seed, 42))}
		s := g.structType(0, 1+g.r.IntN(8))
		rows := make([][]any, g.r.IntN(60))
		for i := range rows {
			rows[i] = g.value(s, false).([]any)
		}
		opts := WriterOptions{RowGroupRows: 1 + g.r.IntN(40), PageBytes: 128 + g.r.IntN(4096)}
		t.Run(fmt.Sprintf("seed%d", seed), func(t *testing.T) {
			data, st := writeFile(t, s, rows, opts)
			if st.NumRecords != int64(len(rows)) {
				t.Errorf("NumRecords = %d", st.NumRecords)
			}
			as, got := readArrow(t, data, s)
			compareRows(t, "pqarrow", s, rows, got)
			for i, f := range s.Fields {
				if g, w := fieldString(as.Field(i)), deltaFieldString(f.Name, f.Type, f.Nullable); g != w {
					t.Fatalf("arrow field %d:\n got %s\nwant %s", i, g, w)
				}
			}
			rs, own, err := ReadFile(bytes.NewReader(data), int64(len(data)))
			if err != nil {
				t.Fatalf("ReadFile: %v\nschema %s", err, s)
			}
			if rs.String() != s.String() {
				t.Fatalf("ReadFile schema\n got %s\nwant %s", rs, s)
			}
			compareRows(t, "ReadFile", s, rows, own)
		})
	}
}
