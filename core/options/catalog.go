package options

import (
	"fmt"
	"strings"
)

// Status says whether Tributary implements an option.
type Status string

// Option statuses. There is no third state: an option is either honoured
// (parsed and consumed, with a behavioural test) or refused at load time.
const (
	// Honoured options are parsed and change what the stream does.
	Honoured Status = "honoured"
	// Refused options fail the stream at load time with "not supported yet".
	Refused Status = "not supported yet"
)

// OptionDoc documents one option for users (docs/options.md).
type OptionDoc struct {
	// Name is the documented spelling.
	Name string
	// Scope is "cloudFiles", "reader", "delta source" or "sink".
	Scope string
	// Formats lists the cloudFiles.format values a reader option applies
	// to (nil: every format, or not a reader option).
	Formats []FileFormat
	// Default is the default as users read it ("" when none).
	Default string
	// Status is Honoured or Refused.
	Status Status
	// Doc is one line of meaning; for a refused option, why and what to
	// use instead.
	Doc string
	// Aliases are other accepted names.
	Aliases []string
}

// Catalog lists every option Tributary knows, sorted by name
// (case-insensitively).
func Catalog() []OptionDoc {
	reg := registry()
	al := map[string][]string{}
	for a, n := range aliases() {
		if a == "rescueddatacolumn" {
			a = "rescuedDataColumn" // the seeds' spelling
		}
		al[strings.ToLower(n)] = append(al[strings.ToLower(n)], a)
	}
	var out []OptionDoc
	for _, name := range OptionNames() {
		o := reg[strings.ToLower(name)]
		d := OptionDoc{Name: o.name, Scope: o.scope.short(), Formats: o.formats, Default: o.def, Status: Honoured, Doc: o.doc, Aliases: al[strings.ToLower(o.name)]}
		if o.refused {
			d.Status = Refused
		}
		sortFold(d.Aliases)
		out = append(out, d)
	}
	return out
}

func (sc scope) short() string {
	switch sc {
	case scopeCloudFiles:
		return "cloudFiles"
	case scopeReader:
		return "reader"
	case scopeDelta:
		return "delta source"
	}
	return "sink"
}

// Markdown renders the catalog as docs/options.md.
func Markdown() string {
	var b strings.Builder
	b.WriteString("# Options\n\n")
	b.WriteString("Generated from the option registry (`core/options/registry.go`) by\n")
	b.WriteString("`UPDATE_DOCS=1 go test ./core/options -run TestOptionsDoc`; a test fails when this\n")
	b.WriteString("file is out of date. Names are case-insensitive, as in Spark. Every option is\n")
	b.WriteString("either **honoured** (it does what Spark/Databricks document, proven by a\n")
	b.WriteString("behavioural test in `tests/options`) or refused at load time with\n")
	b.WriteString("`option NAME: not supported yet (why)`.\n")
	cat := Catalog()
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
