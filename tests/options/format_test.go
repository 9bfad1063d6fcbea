package options_test

import (
	"encoding/json"
	"fmt"
	"sort"
	"strings"
)

// fmtValue prints a table value compactly and deterministically.
func fmtValue(v any) string {
	switch x := v.(type) {
	case nil:
		return "null"
	case string:
		return x
	case []byte:
		return string(x)
	}
	b, err := json.Marshal(v)
	if err != nil {
		return fmt.Sprint(v)
	}
	return string(b)
}

// fmtRow prints a row as sorted col=value pairs.
func fmtRow(r map[string]any) string {
	keys := make([]string, 0, len(r))
	for k := range r {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	var b strings.Builder
	for _, k := range keys {
		fmt.Fprintf(&b, "%s=%s;", k, fmtValue(r[k]))
	}
	return b.String()
}
