// Package schemamerge provides how two versions of a stream's schema
// relate: whether a schema keeps every column of another (Compatible,
// Adoptable), the schema with another's new columns appended
// (AddMissing, Adopt), the columns one lacks (MissingPaths, HasPath), and
// the rescued data column (WithRescued). Columns match by name
// case-insensitively; nested structs are compared field by field.
package schemamerge

import (
	"fmt"
	"strings"

	"github.com/tributary-io/tributary/core/schema"
)

// Compatible checks that next keeps every column of current with the same
// type (new columns, also inside structs, may be added): a dropped, renamed
// or retyped column cannot be resumed from (SPEC §8).
func Compatible(current, next *schema.StructType, prefix string) error {
	for _, f := range current.Fields {
		i := next.FieldIndexFold(f.Name)
		if i < 0 {
			return fmt.Errorf("column %s%s would be dropped", prefix, f.Name)
		}
		cs, ok1 := f.Type.(*schema.StructType)
		ns, ok2 := next.Fields[i].Type.(*schema.StructType)
		if ok1 && ok2 {
			if err := Compatible(cs, ns, prefix+f.Name+"."); err != nil {
				return err
			}
			continue
		}
		if !schema.EqualType(f.Type, next.Fields[i].Type) {
			return fmt.Errorf("column %s%s would change from %s to %s", prefix, f.Name, f.Type, next.Fields[i].Type)
		}
	}
	return nil
}

// AddMissing returns current with every field of inferred that it lacks
// appended (recursively inside structs), the rescued column kept last, and
// the dotted paths it added. Existing fields keep their types.
func AddMissing(current, inferred *schema.StructType, rescued string) (*schema.StructType, []string) {
	var added []string
	out := mergeStruct(current, inferred, "", rescued, &added)
	return out, added
}

// mergeStruct is AddMissing below prefix.
func mergeStruct(cur, inf *schema.StructType, prefix, rescued string, added *[]string) *schema.StructType {
	out := cur.Clone()
	for _, f := range inf.Fields {
		if prefix == "" && f.Name == rescued {
			continue
		}
		i := out.FieldIndexFold(f.Name)
		if i < 0 {
			nf := f
			nf.Nullable = true
			*added = append(*added, prefix+f.Name)
			out.Fields = append(out.Fields, nf)
			continue
		}
		cs, ok1 := out.Fields[i].Type.(*schema.StructType)
		is, ok2 := f.Type.(*schema.StructType)
		if ok1 && ok2 {
			out.Fields[i].Type = mergeStruct(cs, is, prefix+out.Fields[i].Name+".", "", added)
		}
	}
	if prefix == "" && rescued != "" {
		if i := out.FieldIndex(rescued); i >= 0 && i != len(out.Fields)-1 {
			r := out.Fields[i]
			out.Fields = append(append(out.Fields[:i:i], out.Fields[i+1:]...), r)
		}
	}
	return out
}

// Adopt returns the schema the table has after a batch of schema
// ours: ours when it keeps every column of the table; otherwise the
// table's schema with ours' new columns appended, provided every table
// column ours lacks is nullable (an append that omits a nullable column is
// valid Delta: another writer added it). A retyped column is an error.
func Adopt(table, ours *schema.StructType) (*schema.StructType, error) {
	if Compatible(table, ours, "") == nil {
		return ours, nil
	}
	if err := Adoptable(table, ours, ""); err != nil {
		return nil, err
	}
	merged, _ := AddMissing(table, ours, "")
	return merged, nil
}

// Adoptable is Compatible allowing nullable columns of current that next lacks.
func Adoptable(current, next *schema.StructType, prefix string) error {
	for _, f := range current.Fields {
		i := next.FieldIndexFold(f.Name)
		if i < 0 {
			if !f.Nullable {
				return fmt.Errorf("column %s%s is NOT NULL in the table and missing from the stream's data", prefix, f.Name)
			}
			continue
		}
		cs, ok1 := f.Type.(*schema.StructType)
		ns, ok2 := next.Fields[i].Type.(*schema.StructType)
		if ok1 && ok2 {
			if err := Adoptable(cs, ns, prefix+f.Name+"."); err != nil {
				return err
			}
			continue
		}
		if !schema.EqualType(f.Type, next.Fields[i].Type) {
			return fmt.Errorf("column %s%s would change from %s to %s", prefix, f.Name, schema.DDLType(f.Type), schema.DDLType(next.Fields[i].Type))
		}
	}
	return nil
}

// MissingPaths lists the dotted paths of current's fields that next lacks.
func MissingPaths(current, next *schema.StructType, prefix string) []string {
	var out []string
	for _, f := range current.Fields {
		i := next.FieldIndexFold(f.Name)
		if i < 0 {
			out = append(out, prefix+f.Name)
			continue
		}
		cs, ok1 := f.Type.(*schema.StructType)
		ns, ok2 := next.Fields[i].Type.(*schema.StructType)
		if ok1 && ok2 {
			out = append(out, MissingPaths(cs, ns, prefix+f.Name+".")...)
		}
	}
	return out
}

// HasPath reports whether st has the dotted path (case-insensitively).
func HasPath(st *schema.StructType, path string) bool {
	name, rest, nested := strings.Cut(path, ".")
	i := st.FieldIndexFold(name)
	if i < 0 {
		return false
	}
	if !nested {
		return true
	}
	sub, ok := st.Fields[i].Type.(*schema.StructType)
	return ok && HasPath(sub, rest)
}

// WithRescued appends the rescued data column (a nullable string) when
// enabled and absent.
func WithRescued(s *schema.StructType, name string) *schema.StructType {
	if name == "" || s.FieldIndex(name) >= 0 {
		return s
	}
	out := &schema.StructType{Fields: append(append([]schema.Field(nil), s.Fields...),
		schema.Field{Name: name, Type: schema.String, Nullable: true})}
	return out
}
