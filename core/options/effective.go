package options

import "strings"

// Setting is one effective option of a stream.
type Setting struct {
	// Name is the documented option name.
	Name string
	// Value is the effective value, in a form Parse reads back.
	Value string
	// Default is true when the value was not given but defaulted or derived.
	Default bool
}

// Describe lists the stream's effective options, defaults included, sorted
// by name (case-insensitively), for the CLI to print. Options without a
// default that were not set are left out, as are reader options that were
// not set (except prefersDecimal when type widening turns it on). The
// stream's locations appear as checkpointLocation and
// cloudFiles.schemaLocation.
func (s *Stream) Describe() []Setting {
	var out []Setting
	for _, o := range registry() {
		if o.get == nil || !o.appliesTo(s.SourceFormat, s.CloudFiles.Format) {
			continue
		}
		v, ok := o.get(s)
		explicit := s.explicit[o.name]
		if o.name == "prefersDecimal" && s.Reader.PrefersDecimal && !explicit {
			v, ok = "true", true
		}
		if !ok {
			continue
		}
		out = append(out, Setting{Name: o.name, Value: v, Default: !explicit})
	}
	for i := range out {
		// Locations may come from the stream config rather than the options.
		switch out[i].Name {
		case "checkpointLocation", "cloudFiles.schemaLocation":
			out[i].Default = false
		}
	}
	sortSettings(out)
	return out
}

// Effective returns Describe as a map from option name to value.
func (s *Stream) Effective() map[string]string {
	m := map[string]string{}
	for _, st := range s.Describe() {
		m[st.Name] = st.Value
	}
	return m
}

func sortSettings(out []Setting) {
	names := make([]string, len(out))
	byName := make(map[string]Setting, len(out))
	for i, st := range out {
		names[i] = st.Name
		byName[st.Name] = st
	}
	sortFold(names)
	for i, n := range names {
		out[i] = byName[n]
	}
}

// FormatSettings writes the settings one per line as "name = value", defaults marked
// with "(default)".
func FormatSettings(settings []Setting) string {
	var b strings.Builder
	for _, st := range settings {
		b.WriteString(st.Name)
		b.WriteString(" = ")
		b.WriteString(st.Value)
		if st.Default {
			b.WriteString("  (default)")
		}
		b.WriteByte('\n')
	}
	return b.String()
}
