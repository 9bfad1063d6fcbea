// Package optdoc provides the user documentation of Tributary's options:
// the option catalog (options.Catalog) rendered as docs/options.md.
package optdoc

import (
	"fmt"
	"strings"

	"github.com/tributary-io/tributary/core/options"
)

// Markdown renders options.Catalog as docs/options.md.
func Markdown() string {
	var b strings.Builder
	b.WriteString("# Options\n\n")
	b.WriteString("Generated from the option registry (`core/options/registry.go`) by\n")
	b.WriteString("`UPDATE_DOCS=1 go test ./core/options -run TestOptionsDoc`; a test fails when this\n")
	b.WriteString("file is out of date. Names are case-insensitive, as in Spark. Every option is\n")
	b.WriteString("either **honoured** (it does what Spark/Databricks document, proven by a\n")
	b.WriteString("behavioural test in `tests/options`) or refused at load time with\n")
	b.WriteString("`option NAME: not supported yet (why)`.\n")
	cat := options.Catalog()
	for _, sc := range []string{"cloudFiles", "reader", "sink", "delta source"} {
		title := map[string]string{
			"cloudFiles":   "Auto Loader (`cloudFiles.*`)",
			"reader":       "File reader options",
			"sink":         "Delta sink (`writeStream`)",
			"delta source": "Delta table as a source",
		}[sc]
		fmt.Fprintf(&b, "\n## %s\n\n", title)
		b.WriteString("| option | default | status | meaning |\n|---|---|---|---|\n")
		for _, d := range cat {
			if d.Scope != sc {
				continue
			}
			name := "`" + d.Name + "`"
			if len(d.Aliases) > 0 {
				name += " (alias `" + strings.Join(d.Aliases, "`, `") + "`)"
			}
			meaning := d.Doc
			if len(d.Formats) > 0 {
				var fs []string
				for _, f := range d.Formats {
					fs = append(fs, string(f))
				}
				meaning = "[" + strings.Join(fs, ", ") + "] " + meaning
			}
			def := d.Default
			if def == "" {
				def = "—"
			}
			fmt.Fprintf(&b, "| %s | %s | %s | %s |\n", name, mdEscape(def), d.Status, mdEscape(meaning))
		}
	}
	return b.String()
}

func mdEscape(s string) string { return strings.ReplaceAll(s, "|", "\\|") }
