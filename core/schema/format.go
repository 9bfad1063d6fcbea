package schema

import (
	"fmt"
	"strings"
)

// String returns "decimal(p,s)".
func (d DecimalType) String() string { return fmt.Sprintf("decimal(%d,%d)", d.Precision, d.Scale) }

// String returns "struct<name:type,...>".
func (s *StructType) String() string {
	var b strings.Builder
	b.WriteString("struct<")
	for i, f := range s.Fields {
		if i > 0 {
			b.WriteByte(',')
		}
		b.WriteString(f.Name)
		b.WriteByte(':')
		b.WriteString(f.Type.String())
	}
	b.WriteByte('>')
	return b.String()
}

// String returns "array<element>".
func (a *ArrayType) String() string { return "array<" + a.Element.String() + ">" }

// String returns "map<key,value>".
func (m *MapType) String() string {
	return "map<" + m.Key.String() + "," + m.Value.String() + ">"
}

// FieldIndexFold returns the index of the field named name, matched exactly
// or, failing that, case-insensitively as Spark resolves columns; -1 if none.
func (s *StructType) FieldIndexFold(name string) int {
	if i := s.FieldIndex(name); i >= 0 {
		return i
	}
	for i, f := range s.Fields {
		if strings.EqualFold(f.Name, name) {
			return i
		}
	}
	return -1
}

// FieldIndex returns the index of the field named name, or -1.
func (s *StructType) FieldIndex(name string) int {
	for i, f := range s.Fields {
		if f.Name == name {
			return i
		}
	}
	return -1
}
