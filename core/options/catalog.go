package options

import "strings"

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
