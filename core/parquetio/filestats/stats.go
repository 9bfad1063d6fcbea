// Package filestats computes the statistics of a Delta data file as a Delta
// add action carries them (numRecords, minValues, maxValues, nullCount),
// with delta-spark's column and truncation rules, from the rows written to
// it; and the byte-array min/max bounds that parquet-java's footer and
// column-index truncation rules share (Bound, MinMax).
package filestats

import (
	"encoding/json"
	"math"
	"math/big"
	"strings"
	"time"
	"unicode/utf16"
	"unicode/utf8"

	"github.com/tributary-io/tributary/core/parquetio/internal/values"
	"github.com/tributary-io/tributary/core/schema"
)

// FileStats are the statistics of one data file in the form of a Delta add
// action's stats: nested structs give nested maps keyed by field name. Map
// values are int8/int16/int32/int64/float32/float64 for numbers, string for
// strings, dates ("2024-01-02") and timestamps ("2024-01-02T03:04:05.123Z";
// timestamp_ntz without the zone), json.Number for decimals, and int64 for
// null counts.
//
// The rules are delta-spark's: statistics cover the first NumIndexedCols
// leaf columns (a struct's fields count one by one, an array or map counts
// as one); min/max exist for numbers, dates, timestamps, strings and
// decimals, never for booleans, binary, arrays and maps; nullCount exists for
// every covered column, and for an array or map it counts null values of the
// column itself. A column whose values are all null has no min/max; a float
// column holding NaN has none either, and an infinite bound is left out.
// Strings are cut to StringPrefixLength UTF-16 code units the way Spark does
// (the max gets a tie-breaker character, or is left out if no short upper
// bound exists). Timestamps are written with millisecond precision: the min
// rounded down and the max rounded up, so both stay true bounds for readers
// that do not widen the max themselves.
type FileStats struct {
	NumRecords int64          `json:"numRecords"`
	MinValues  map[string]any `json:"minValues"`
	MaxValues  map[string]any `json:"maxValues"`
	NullCount  map[string]any `json:"nullCount"`
	// TightBounds reports that min/max/nullCount describe exactly the rows
	// of the file (true for a freshly written file; it matters only to
	// tables with deletion vectors).
	TightBounds bool `json:"tightBounds,omitempty"`
}

// JSON returns the stats as the JSON string a Delta add action carries.
func (s FileStats) JSON() (string, error) {
	b, err := json.Marshal(s)
	return string(b), err
}

// statCol accumulates the statistics of one column covered by stats.
type statCol struct {
	name     string
	typ      schema.Type
	children []*statCol // non-nil for structs
	minmax   bool       // min/max collected for this type
	skip     bool       // not selected by delta.dataSkippingStatsColumns

	nulls int64
	has   bool // a non-null value was seen
	nan   bool
	hasF  bool // a float other than NaN was seen (minF, maxF are set)
	minI  int64
	maxI  int64
	minF  float64
	maxF  float64
	strs  MinMax // strings: min/max, long values cut (see bound)
	minD  *big.Int
	maxD  *big.Int
	limit *big.Int // 10^precision of a decimal
}

// Options choose the columns that get statistics.
type Options struct {
	// NoStats disables minValues, maxValues and nullCount (numRecords is
	// still counted), as delta.dataSkippingNumIndexedCols = 0 does.
	NoStats bool
	// NumIndexedCols is the number of leaf columns, in schema order, that
	// get statistics (delta.dataSkippingNumIndexedCols); negative means all.
	NumIndexedCols int
	// StringPrefixLength is the length, in UTF-16 code units, string
	// min/max statistics are truncated to.
	StringPrefixLength int
	// StatsColumns, when not nil, names the columns that get statistics
	// (delta.dataSkippingStatsColumns), overriding NumIndexedCols.
	StatsColumns [][]string
}

// Collector accumulates the statistics of one file's rows. It is not safe
// for concurrent use.
type Collector struct {
	n       int64
	cols    []*statCol
	noStats bool
	prefix  int
}

// New returns a Collector for rows of schema s.
func New(s *schema.StructType, opts Options) *Collector {
	c := &Collector{noStats: opts.NoStats, prefix: opts.StringPrefixLength}
	if opts.NoStats {
		return c
	}
	budget := opts.NumIndexedCols
	if budget < 0 || opts.StatsColumns != nil {
		budget = math.MaxInt
	}
	c.cols, _ = statCols(s, budget, opts.StringPrefixLength)
	if opts.StatsColumns != nil {
		selectCols(c.cols, opts.StatsColumns)
	}
	return c
}

// selectCols keeps statistics only for the columns named by paths (a
// struct named whole keeps all its fields; names match case-insensitively,
// as delta.dataSkippingStatsColumns does) and reports whether any was kept.
func selectCols(cols []*statCol, paths [][]string) bool {
	kept := false
	for _, sc := range cols {
		var rest [][]string
		whole := false
		for _, p := range paths {
			if len(p) == 0 || !strings.EqualFold(p[0], sc.name) {
				continue
			}
			if len(p) == 1 {
				whole = true
			} else {
				rest = append(rest, p[1:])
			}
		}
		switch {
		case whole:
		case sc.children != nil && len(rest) > 0:
			sc.skip = !selectCols(sc.children, rest)
		default:
			sc.skip = true
		}
		kept = kept || !sc.skip
	}
	return kept
}

// statCols mirrors delta-spark's truncateSchema: it keeps fields while fewer
// than budget leaves were taken, descending into structs.
func statCols(s *schema.StructType, budget, prefix int) ([]*statCol, int) {
	var out []*statCol
	taken := 0
	for _, f := range s.Fields {
		if taken >= budget {
			break
		}
		sc := &statCol{name: f.Name, typ: f.Type}
		if st, ok := f.Type.(*schema.StructType); ok {
			var n int
			sc.children, n = statCols(st, budget-taken, prefix)
			if sc.children == nil {
				sc.children = []*statCol{}
			}
			taken += n
		} else {
			taken++
			sc.minmax = eligible(f.Type)
			sc.strs.keep = statsKeep(prefix)
			if d, ok := f.Type.(schema.DecimalType); ok {
				sc.limit = values.Pow10(d.Precision)
			}
		}
		out = append(out, sc)
	}
	return out, taken
}

func eligible(t schema.Type) bool {
	switch t := t.(type) {
	case schema.DecimalType:
		return true
	case schema.PrimitiveType:
		return t != schema.Boolean && t != schema.Binary
	}
	return false
}

// Add counts one row (one value per schema field, in field order).
func (c *Collector) Add(row []any) {
	c.n++
	if c.noStats {
		return
	}
	for i, sc := range c.cols {
		if !sc.skip {
			sc.add(row[i])
		}
	}
}

func (sc *statCol) add(v any) {
	if sc.children != nil {
		fields, _ := v.([]any)
		for i, ch := range sc.children {
			if ch.skip {
				continue
			}
			if fields == nil {
				ch.add(nil)
			} else {
				ch.add(fields[i])
			}
		}
		return
	}
	if v == nil {
		sc.nulls++
		return
	}
	if !sc.minmax {
		return
	}
	first := !sc.has
	sc.has = true
	switch x := v.(type) {
	case int8:
		sc.addInt(int64(x), first)
	case int16:
		sc.addInt(int64(x), first)
	case int32:
		sc.addInt(int64(x), first)
	case int64:
		sc.addInt(x, first)
	case schema.Date:
		sc.addInt(int64(x), first)
	case time.Time:
		sc.addInt(x.UnixMicro(), first)
	case float32:
		sc.addFloat(float64(x))
	case float64:
		sc.addFloat(x)
	case string:
		sc.strs.Add(values.UnsafeBytes(x))
	case schema.Decimal:
		d := sc.typ.(schema.DecimalType)
		u, err := values.Rescale(x, d.Scale, sc.limit)
		if err != nil { // validated before; unreachable
			return
		}
		if first || u.Cmp(sc.minD) < 0 {
			sc.minD = new(big.Int).Set(u)
		}
		if first || u.Cmp(sc.maxD) > 0 {
			sc.maxD = new(big.Int).Set(u)
		}
	}
}

func (sc *statCol) addInt(x int64, first bool) {
	if first || x < sc.minI {
		sc.minI = x
	}
	if first || x > sc.maxI {
		sc.maxI = x
	}
}

// addFloat adds a non-null float: a NaN marks the column (its bounds are
// then dropped), any other value moves the bounds, the first of equal
// extremes (-0 and 0) kept.
func (sc *statCol) addFloat(x float64) {
	if math.IsNaN(x) {
		sc.nan = true
		return
	}
	if !sc.hasF || x < sc.minF {
		sc.minF = x
	}
	if !sc.hasF || x > sc.maxF {
		sc.maxF = x
	}
	sc.hasF = true
}

// Result returns the statistics of the rows added so far.
func (c *Collector) Result() FileStats {
	fs := FileStats{
		NumRecords:  c.n,
		MinValues:   map[string]any{},
		MaxValues:   map[string]any{},
		NullCount:   map[string]any{},
		TightBounds: true,
	}
	if c.noStats {
		return fs
	}
	fill(c.cols, fs.MinValues, fs.MaxValues, fs.NullCount, c.prefix)
	return fs
}

func fill(cols []*statCol, mins, maxs, nulls map[string]any, prefix int) {
	for _, sc := range cols {
		if sc.skip {
			continue
		}
		if sc.children != nil {
			cmin, cmax, cnull := map[string]any{}, map[string]any{}, map[string]any{}
			fill(sc.children, cmin, cmax, cnull, prefix)
			if len(cmin) > 0 {
				mins[sc.name] = cmin
			}
			if len(cmax) > 0 {
				maxs[sc.name] = cmax
			}
			if len(cnull) > 0 {
				nulls[sc.name] = cnull
			}
			continue
		}
		nulls[sc.name] = sc.nulls
		if !sc.minmax || !sc.has || sc.nan {
			continue
		}
		lo, hi, okLo, okHi := sc.bounds(prefix)
		if okLo {
			mins[sc.name] = lo
		}
		if okHi {
			maxs[sc.name] = hi
		}
	}
}

// bounds formats the min and max for JSON.
func (sc *statCol) bounds(prefix int) (lo, hi any, okLo, okHi bool) {
	switch t := sc.typ.(type) {
	case schema.DecimalType:
		return json.Number(values.DecimalString(sc.minD, t.Scale)), json.Number(values.DecimalString(sc.maxD, t.Scale)), true, true
	case schema.PrimitiveType:
		switch t {
		case schema.Byte:
			return int8(sc.minI), int8(sc.maxI), true, true
		case schema.Short:
			return int16(sc.minI), int16(sc.maxI), true, true
		case schema.Integer:
			return int32(sc.minI), int32(sc.maxI), true, true
		case schema.Long:
			return sc.minI, sc.maxI, true, true
		case schema.Float:
			return float32(sc.minF), float32(sc.maxF), !math.IsInf(sc.minF, 0), !math.IsInf(sc.maxF, 0)
		case schema.Double:
			return sc.minF, sc.maxF, !math.IsInf(sc.minF, 0), !math.IsInf(sc.maxF, 0)
		case schema.DateType:
			lo, okLo = formatDate(sc.minI)
			hi, okHi = formatDate(sc.maxI)
			return lo, hi, okLo, okHi
		case schema.Timestamp, schema.TimestampNTZ:
			layout := "2006-01-02T15:04:05.000"
			if t == schema.Timestamp {
				layout += "Z"
			}
			lo, okLo = formatMicros(floorDiv(sc.minI, 1000), layout)
			hi, okHi = formatMicros(ceilDiv(sc.maxI, 1000), layout)
			return lo, hi, okLo, okHi
		case schema.String:
			lo, okLo = truncateMinBound(&sc.strs.lo, prefix)
			hi, okHi = truncateMaxBound(&sc.strs.hi, prefix)
			return lo, hi, okLo, okHi
		}
	}
	return nil, nil, false, false
}

// formatDate formats days since the epoch; years outside 1..9999 have no
// four-digit form and are left out.
func formatDate(days int64) (string, bool) {
	if days < -719162 || days > 2932896 { // 0001-01-01 .. 9999-12-31
		return "", false
	}
	return time.Unix(days*86400, 0).UTC().Format("2006-01-02"), true
}

func formatMicros(millis int64, layout string) (string, bool) {
	const lo, hi = -62135596800000, 253402300799999 // 0001-01-01 .. 9999-12-31T23:59:59.999
	if millis < lo || millis > hi {
		return "", false
	}
	return time.UnixMilli(millis).UTC().Format(layout), true
}

func floorDiv(a, b int64) int64 {
	q := a / b
	if a%b != 0 && (a < 0) != (b < 0) {
		q--
	}
	return q
}

func ceilDiv(a, b int64) int64 {
	q := a / b
	if a%b != 0 && (a < 0) == (b < 0) {
		q++
	}
	return q
}

const (
	asciiMax = 0x7F
	utf8Max  = utf8.MaxRune // U+10FFFF, a surrogate pair in UTF-16
)

// statsKeep is how many bytes of a long string the statistics keep: more
// than the 2×prefix+1 UTF-16 code units (at most 3 bytes each) that
// truncateMin and truncateMax look at.
func statsKeep(prefix int) int {
	return max(MaxStatsSize, 3*(2*prefix+2)+utf8.UTFMax)
}

// truncateMinBound is truncateMin of the string b stands for.
func truncateMinBound(b *bound, prefix int) (string, bool) {
	if !b.long() {
		return truncateMin(string(b.b), prefix)
	}
	if !b.valid {
		return string(b.b[:prefix]), true
	}
	return truncateMin(string(runePrefix(b.b)), prefix)
}

// truncateMaxBound is truncateMax of the string b stands for.
func truncateMaxBound(b *bound, prefix int) (string, bool) {
	if !b.long() {
		return truncateMax(string(b.b), prefix)
	}
	if !b.valid {
		return "", false
	}
	return truncateMax(string(runePrefix(b.b)), prefix)
}

// runePrefix drops a character cut off at the end of b.
func runePrefix(b []byte) []byte {
	for i := len(b) - 1; i >= 0 && i >= len(b)-utf8.UTFMax; i-- {
		if utf8.RuneStart(b[i]) {
			if utf8.FullRune(b[i:]) {
				return b
			}
			return b[:i]
		}
	}
	return b
}

// truncateMin cuts s to prefix UTF-16 code units without splitting a
// surrogate pair (delta-spark truncateMinStringAgg). A prefix is never
// greater than s, so it stays a lower bound.
func truncateMin(s string, prefix int) (string, bool) {
	if !utf8.ValidString(s) {
		// Byte prefixes of invalid UTF-8 keep the byte order; cut on bytes.
		if len(s) > prefix {
			s = s[:prefix]
		}
		return s, true
	}
	u := utf16.Encode([]rune(s))
	if len(u) <= prefix {
		return s, true
	}
	return string(utf16.Decode(u[:minPrefixLen(u, prefix)])), true
}

func minPrefixLen(u []uint16, prefix int) int {
	if prefix > 0 && utf16.IsSurrogate(rune(u[prefix-1])) && u[prefix-1] < 0xDC00 && prefix < len(u) {
		return prefix + 1
	}
	return prefix
}

// truncateMax returns an upper bound of s at most about 2×prefix UTF-16 code
// units long (delta-spark truncateMaxStringAgg), or false if none exists.
func truncateMax(s string, prefix int) (string, bool) {
	if !utf8.ValidString(s) {
		if len(s) <= prefix {
			return s, true
		}
		return "", false
	}
	u := utf16.Encode([]rune(s))
	if len(u) <= prefix {
		return s, true
	}
	hiMax, loMax := utf16.EncodeRune(utf8Max)
	for n := minPrefixLen(u, prefix); n <= 2*prefix; {
		switch {
		case n >= len(u):
			return s, true
		case n+1 < len(u) && rune(u[n]) == hiMax && rune(u[n+1]) == loMax:
			n += 2
		case u[n] < asciiMax:
			return string(utf16.Decode(u[:n])) + string(rune(asciiMax)), true
		default:
			return string(utf16.Decode(u[:n])) + string(rune(utf8Max)), true
		}
	}
	return "", false
}
