package sink

import (
	"encoding/json"
	"math"
	"strings"

	"github.com/tributary-io/tributary/core/delta"
	"github.com/tributary-io/tributary/core/schema"
)

// keyBounds is what the batch's keys say about the target files that can
// hold one of them: for a partition key column, the set of its values;
// for an integral data key column, the range of its values. A target file
// outside either cannot match and is not read.
type keyBounds struct {
	keys []string
	cols []keyBound
}

type keyBound struct {
	parts    map[string]bool // partition values seen (partition column)
	isPart   bool
	min, max int64
	seen     bool // an integral value was seen
	integral bool // every value was integral (data column)
}

func newKeyBounds(keys []string) *keyBounds {
	b := &keyBounds{keys: keys, cols: make([]keyBound, len(keys))}
	for i := range b.cols {
		b.cols[i].integral = true
	}
	return b
}

// add records the key of a batch row (every key column is non-NULL).
func (b *keyBounds) add(sch *schema.StructType, parts map[string]*string, row []any) {
	for i, k := range b.keys {
		c := &b.cols[i]
		if j := sch.FieldIndexFold(k); j >= 0 {
			n, ok := integral(row[j])
			if !ok {
				c.integral = false
				continue
			}
			if !c.seen || n < c.min {
				c.min = n
			}
			if !c.seen || n > c.max {
				c.max = n
			}
			c.seen = true
			continue
		}
		for name, v := range parts {
			if strings.EqualFold(name, k) && v != nil {
				if c.parts == nil {
					c.parts = map[string]bool{}
				}
				c.isPart, c.parts[*v] = true, true
			}
		}
	}
}

// excludes reports whether no row of the target file a can hold a key of
// the batch.
func (b *keyBounds) excludes(a *delta.Add) bool {
	var st *delta.Stats
	for i, k := range b.keys {
		c := &b.cols[i]
		if c.isPart {
			for name, v := range a.PartitionValues {
				if strings.EqualFold(name, k) {
					return v == nil || !c.parts[*v] // NULL never matches
				}
			}
			continue
		}
		if !c.integral || !c.seen {
			continue
		}
		if st == nil {
			var err error
			if st, err = a.ParseStats(); err != nil || st == nil {
				return false
			}
		}
		lo, ok1 := statInt(st.MinValues, k)
		hi, ok2 := statInt(st.MaxValues, k)
		if ok1 && ok2 && (hi < c.min || lo > c.max) {
			return true
		}
	}
	return false
}

// statInt returns the integral statistic of column k.
func statInt(m map[string]any, k string) (int64, bool) {
	for name, v := range m {
		if !strings.EqualFold(name, k) {
			continue
		}
		switch x := v.(type) {
		case json.Number:
			n, err := x.Int64()
			return n, err == nil
		case float64:
			if x == math.Trunc(x) && math.Abs(x) < 1<<53 {
				return int64(x), true
			}
		}
		return 0, false
	}
	return 0, false
}

// integral returns an integer key value as int64.
func integral(v any) (int64, bool) {
	switch x := v.(type) {
	case int:
		return int64(x), true
	case int8:
		return int64(x), true
	case int16:
		return int64(x), true
	case int32:
		return int64(x), true
	case int64:
		return x, true
	case uint8:
		return int64(x), true
	case uint16:
		return int64(x), true
	case uint32:
		return int64(x), true
	}
	return 0, false
}
