package csvcol

import (
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/tributary-io/tributary/core/schema"
)

// HeaderMismatch is enforceSchema=false's check of a header's names
// against the data columns' names want: "" when they are want in order
// (case-insensitively, as spark.sql.caseSensitive=false), else what
// differs, as Spark's CSVHeaderChecker says it.
func HeaderMismatch(names, want []string) string {
	if len(names) != len(want) {
		return fmt.Sprintf("number of columns in the header (%d) is not the number of fields in the schema (%d)", len(names), len(want))
	}
	for i := range names {
		if !strings.EqualFold(names[i], want[i]) {
			return fmt.Sprintf("expected %s but found %s", want[i], names[i])
		}
	}
	return ""
}

// MatchNames matches a header's names with the data columns by name, as
// Auto Loader does with a rescued data column: want are the columns'
// names, data their schema indexes. idx is each name's schema index (-1:
// none): the column of the same name, else with fold the first one equal
// but for case; without fold such a name matches nothing and caseOnly
// says so.
func MatchNames(names, want []string, data []int, fold bool) (idx []int, caseOnly []bool) {
	for _, name := range names {
		at, co := -1, false
		for k, fn := range want {
			if fn == name {
				at, co = data[k], false
				break
			}
			if at < 0 && strings.EqualFold(fn, name) {
				if fold {
					at = data[k]
				} else {
					co = true
				}
			}
		}
		idx = append(idx, at)
		caseOnly = append(caseOnly, co)
	}
	return idx, caseOnly
}

// SafeHeader is Spark's CSV header cleanup: an empty name (or the
// nullValue) becomes _c<index>; names repeated (case-insensitively) get
// their index appended.
func SafeHeader(row []string, nullValue string) []string {
	named := func(v string) bool { return v != "" && v != nullValue }
	// repeated[i]: row[i]'s name occurs again, case-insensitively. A
	// header of a few dozen names is compared pair by pair (strings.ToLower
	// allocates nothing for a name already in lower case); a map of the
	// names cost a file of 1 KB ~0.5 µs.
	repeated := make([]bool, len(row))
	if len(row) <= 64 {
		lower := make([]string, len(row))
		for i, v := range row {
			lower[i] = strings.ToLower(v)
		}
		for i := range row {
			for j := i + 1; j < len(row) && named(row[i]); j++ {
				if named(row[j]) && lower[i] == lower[j] {
					repeated[i], repeated[j] = true, true
				}
			}
		}
	} else {
		count := map[string]int{}
		for _, v := range row {
			if named(v) {
				count[strings.ToLower(v)]++
			}
		}
		for i, v := range row {
			repeated[i] = count[strings.ToLower(v)] > 1
		}
	}
	out := make([]string, len(row))
	for i, v := range row {
		switch {
		case !named(v):
			out[i] = "_c" + strconv.Itoa(i)
		case repeated[i]:
			out[i] = v + strconv.Itoa(i)
		default:
			out[i] = v
		}
	}
	return out
}

// HeaderKey is what a header row's column map depends on besides the row
// and the reader options: the schema (the same one, not an equal one) and
// its columns' roles (the data columns follow from these).
type HeaderKey struct {
	// Schema is the reader's schema.
	Schema *schema.StructType
	// Rescue is the rescued data column's index (-1: none): columns
	// match by name with one, by position without.
	Rescue int
	// Corrupt is the corrupt-record column's index (-1: none).
	Corrupt int
	// Fold is whether names equal but for case match.
	Fold bool
}

// HeaderMap is a header row's column map. The readers of a batch's files
// share the last one made (a batch's small files mostly have the same
// header, and making the map, Spark's name cleanup with its map and the
// match by name, took ~3 µs a file, a tenth of the CPU of a 1 KB file), so
// it is only read: its slices are clipped, and a reader that extends its
// map for extra columns appends to copies.
type HeaderMap struct {
	// Key is what the map was made for.
	Key HeaderKey
	// Raw is the header row's values.
	Raw []string
	// Names are the columns' names (SafeHeader).
	Names []string
	// Idx is each file column's schema index (-1: none).
	Idx []int
	// CaseOnly marks a file column whose name differs from a schema
	// column's only by case (matching by name without Fold).
	CaseOnly []bool
}

// MapHeader maps the header row raw onto the data columns: want are their
// names, data their schema indexes, in order. With a rescued data column
// (key.Rescue >= 0) columns match by name (MatchNames), as Auto Loader
// does; without one the schema applies by position, as in Spark. mismatch
// is HeaderMismatch's finding on the names.
func MapHeader(key HeaderKey, raw []string, nullValue string, want []string, data []int) (m *HeaderMap, mismatch string) {
	names := SafeHeader(raw, nullValue)
	m = &HeaderMap{Key: key, Raw: raw, Names: names}
	if key.Rescue < 0 {
		m.Idx = make([]int, len(names))
		for i := range names {
			m.Idx[i] = DataAt(data, i)
		}
		m.CaseOnly = make([]bool, len(names))
	} else {
		m.Idx, m.CaseOnly = MatchNames(names, want, data, key.Fold)
		m.Idx, m.CaseOnly = slices.Clip(m.Idx), slices.Clip(m.CaseOnly)
	}
	return m, HeaderMismatch(names, want)
}

// DataAt is the schema index of file column i when the schema applies by
// position: data[i], data being the data columns' schema indexes, or -1
// for a column beyond them.
func DataAt(data []int, i int) int {
	if i < len(data) {
		return data[i]
	}
	return -1
}

// Fits reports whether m (nil: none) is the map made for key and a header
// row of n values, value(i) being the i-th (only read).
func (m *HeaderMap) Fits(key HeaderKey, n int, value func(int) []byte) bool {
	if m == nil || m.Key != key || len(m.Raw) != n {
		return false
	}
	for i, v := range m.Raw {
		if string(value(i)) != v {
			return false
		}
	}
	return true
}
