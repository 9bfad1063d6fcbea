package csvcol

import (
	"fmt"
	"strconv"
	"strings"
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
	count := map[string]int{}
	for _, v := range row {
		if v != "" && v != nullValue {
			count[strings.ToLower(v)]++
		}
	}
	out := make([]string, len(row))
	for i, v := range row {
		switch {
		case v == "" || v == nullValue:
			out[i] = "_c" + strconv.Itoa(i)
		case count[strings.ToLower(v)] > 1:
			out[i] = v + strconv.Itoa(i)
		default:
			out[i] = v
		}
	}
	return out
}
