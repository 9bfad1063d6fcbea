package schema

import "strings"

// ApplyHints returns a copy of s with each schema hint applied in order
// (cloudFiles.schemaHints: hinted columns get the hinted type, every other
// column keeps its inferred type). A hint's path is resolved field by field,
// exact name first, then case-insensitively (the existing spelling is kept);
// "element" steps into an array's elements and "key"/"value" into a map's
// keys and values. A column the schema lacks is appended at the end of its
// struct, creating the intermediate structs a nested hint needs. A hint
// always wins: an intermediate path element that is neither a struct nor a
// collection stepped into is replaced by a struct. The leaf field's
// nullability becomes !NotNull and a COMMENT is stored as the field's
// "comment" metadata. s is not modified.
func ApplyHints(s *StructType, hints []HintField) *StructType {
	out := s.Clone()
	if out == nil {
		out = &StructType{}
	}
	for _, h := range hints {
		if len(h.Path) == 0 || h.Type == nil {
			continue
		}
		applyHint(out, h, 0)
	}
	return out
}

// applyHint applies h.Path[i:] inside struct st.
func applyHint(st *StructType, h HintField, i int) {
	name := h.Path[i]
	j := hintFieldIndex(st, name)
	if j < 0 {
		st.Fields = append(st.Fields, Field{Name: name, Nullable: true})
		j = len(st.Fields) - 1
	}
	f := &st.Fields[j]
	if i == len(h.Path)-1 {
		f.Type = CloneType(h.Type)
		f.Nullable = !h.NotNull
		if h.Comment != "" {
			if f.Metadata == nil {
				f.Metadata = map[string]any{}
			}
			f.Metadata["comment"] = h.Comment
		}
		return
	}
	f.Type = hintDescend(f.Type, h, i+1)
}

// hintDescend applies h.Path[i:] inside a value of type t and returns the
// (possibly replaced) type.
func hintDescend(t Type, h HintField, i int) Type {
	seg := strings.ToLower(h.Path[i])
	last := i == len(h.Path)-1
	switch tt := t.(type) {
	case *ArrayType:
		if tt != nil && seg == "element" {
			if last {
				tt.Element = CloneType(h.Type)
			} else {
				tt.Element = hintDescend(tt.Element, h, i+1)
			}
			return tt
		}
	case *MapType:
		if tt != nil && (seg == "key" || seg == "value") {
			switch {
			case last && seg == "key":
				tt.Key = CloneType(h.Type)
			case last:
				tt.Value = CloneType(h.Type)
			case seg == "key":
				tt.Key = hintDescend(tt.Key, h, i+1)
			default:
				tt.Value = hintDescend(tt.Value, h, i+1)
			}
			return tt
		}
	case *StructType:
		if tt != nil {
			applyHint(tt, h, i)
			return tt
		}
	}
	st := &StructType{}
	applyHint(st, h, i)
	return st
}

func hintFieldIndex(st *StructType, name string) int {
	if j := st.FieldIndex(name); j >= 0 {
		return j
	}
	for j, f := range st.Fields {
		if strings.EqualFold(f.Name, name) {
			return j
		}
	}
	return -1
}
