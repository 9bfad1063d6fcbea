// Package widen applies Delta Lake type widening to schemas as Auto Loader's
// cloudFiles.schemaEvolutionMode=addNewColumnsWithTypeWidening does (seed
// 002): it widens a stream's schema to the types a new file was inferred
// with, and records each change in the table schema's delta.typeChanges
// field metadata, as the Delta protocol's typeWidening feature requires.
package widen

import (
	"errors"
	"fmt"
	"strings"

	"github.com/tributary-io/tributary/core/schema"
)

// TypeChangesKey is the field metadata key that lists a column's type
// changes (Delta protocol, Type Widening).
const TypeChangesKey = "delta.typeChanges"

// ErrNotWidening is wrapped when a column's type changes in a way that is
// not a supported widening (a narrowing, int to string, ...).
var ErrNotWidening = errors.New("not a supported type widening")

// Options are the widening rules that depend on the source.
type Options struct {
	// DateToTimestampNTZ allows date → timestamp_ntz (Auto Loader allows it
	// for Parquet files only).
	DateToTimestampNTZ bool
}

// Change is one type change of a column (or of an array element, map key or
// map value inside it).
type Change struct {
	// Path is the column's path from the top level.
	Path []string
	// FieldPath is "" for the column itself, or the path inside it through
	// arrays and maps: "element", "key", "value", "value.element", ...
	FieldPath string
	// From and To are the types before and after.
	From, To schema.Type
}

// String renders the change as "a.b: integer -> long".
func (c Change) String() string {
	p := strings.Join(c.Path, ".")
	if c.FieldPath != "" {
		p += " (" + c.FieldPath + ")"
	}
	return fmt.Sprintf("%s: %s -> %s", p, c.From, c.To)
}

// Type returns the type a column of type current takes when a file gives it
// type inferred: current when inferred fits it or when no supported
// widening reconciles the two (the values are then rescued); otherwise the
// narrowest type both widen to (schema.WidenType: the seed-002 table and
// its decimal precision rule), with date → timestamp_ntz only when
// opts.DateToTimestampNTZ. Structs, arrays and maps are not handled here.
func Type(current, inferred schema.Type, opts Options) schema.Type {
	if current == schema.DateType && inferred == schema.TimestampNTZ && !opts.DateToTimestampNTZ {
		return current
	}
	t, ok := schema.WidenType(current, inferred)
	if !ok {
		return current
	}
	return t
}

// Schema returns current with every field's type widened to what inferred
// gives it (Type, recursively through structs, arrays and maps; fields are
// matched by name, case-insensitively) and the changes made. Fields of
// inferred that current lacks are not added; fields named skip (the rescued
// data column) are left alone. current is not modified.
func Schema(current, inferred *schema.StructType, skip string, opts Options) (*schema.StructType, []Change) {
	var changes []Change
	out := widenStruct(current, inferred, nil, skip, opts, &changes)
	return out, changes
}

func widenStruct(cur, inf *schema.StructType, path []string, skip string, opts Options, changes *[]Change) *schema.StructType {
	out := cur.Clone()
	for i, f := range out.Fields {
		if len(path) == 0 && skip != "" && f.Name == skip {
			continue
		}
		j := inf.FieldIndexFold(f.Name)
		if j < 0 {
			continue
		}
		p := append(append([]string(nil), path...), f.Name)
		out.Fields[i].Type = widenType(f.Type, inf.Fields[j].Type, p, "", skip, opts, changes)
	}
	return out
}

func widenType(cur, inf schema.Type, path []string, fieldPath, skip string, opts Options, changes *[]Change) schema.Type {
	switch c := cur.(type) {
	case *schema.StructType:
		if i, ok := inf.(*schema.StructType); ok {
			return widenStruct(c, i, path, skip, opts, changes)
		}
		return cur
	case *schema.ArrayType:
		if i, ok := inf.(*schema.ArrayType); ok {
			return &schema.ArrayType{Element: widenType(c.Element, i.Element, path, joinFieldPath(fieldPath, "element"), skip, opts, changes), ContainsNull: c.ContainsNull}
		}
		return cur
	case *schema.MapType:
		if i, ok := inf.(*schema.MapType); ok {
			return &schema.MapType{
				Key:               widenType(c.Key, i.Key, path, joinFieldPath(fieldPath, "key"), skip, opts, changes),
				Value:             widenType(c.Value, i.Value, path, joinFieldPath(fieldPath, "value"), skip, opts, changes),
				ValueContainsNull: c.ValueContainsNull,
			}
		}
		return cur
	}
	switch inf.(type) {
	case *schema.StructType, *schema.ArrayType, *schema.MapType:
		return cur
	}
	t := Type(cur, inf, opts)
	if !schema.EqualType(t, cur) {
		*changes = append(*changes, Change{Path: path, FieldPath: fieldPath, From: cur, To: t})
	}
	return t
}

func joinFieldPath(a, b string) string {
	if a == "" {
		return b
	}
	return a + "." + b
}

// TableSchema returns the schema a Delta table at schema old takes when a
// stream writes it with schema next: next's fields, each keeping the field
// metadata old has for it (comments, earlier type changes), and one
// delta.typeChanges entry {fromType, toType[, fieldPath]} appended for each
// type that changed between old and next. A change that is not a widening
// (Type would not give it; with opts' rules) or a field of old that next
// lacks is an error wrapping ErrNotWidening. It also returns the changes.
func TableSchema(old, next *schema.StructType, opts Options) (*schema.StructType, []Change, error) {
	var changes []Change
	out, err := tableStruct(old, next, nil, opts, &changes)
	if err != nil {
		return nil, nil, err
	}
	return out, changes, nil
}

func tableStruct(old, next *schema.StructType, path []string, opts Options, changes *[]Change) (*schema.StructType, error) {
	out := next.Clone()
	for _, of := range old.Fields {
		i := out.FieldIndexFold(of.Name)
		p := append(append([]string(nil), path...), of.Name)
		if i < 0 {
			return nil, fmt.Errorf("%w: column %s would be dropped", ErrNotWidening, strings.Join(p, "."))
		}
		nf := &out.Fields[i]
		var local []Change
		t, err := tableType(of.Type, nf.Type, p, "", opts, &local)
		if err != nil {
			return nil, err
		}
		nf.Type = t
		md := cloneMetadata(of.Metadata)
		for k, v := range nf.Metadata {
			if _, ok := md[k]; !ok {
				md[k] = v
			}
		}
		// The changes of this field (not of nested struct fields, which
		// carry their own metadata) are recorded on it.
		var own []any
		for _, c := range local {
			if len(c.Path) == len(p) {
				e := map[string]any{"toType": c.To.String(), "fromType": c.From.String()}
				if c.FieldPath != "" {
					e["fieldPath"] = c.FieldPath
				}
				own = append(own, e)
			}
		}
		if len(own) > 0 {
			prev, _ := md[TypeChangesKey].([]any)
			md[TypeChangesKey] = append(append([]any(nil), prev...), own...)
		}
		if len(md) == 0 {
			md = nil
		}
		nf.Metadata = md
		*changes = append(*changes, local...)
	}
	return out, nil
}

func tableType(old, next schema.Type, path []string, fieldPath string, opts Options, changes *[]Change) (schema.Type, error) {
	switch o := old.(type) {
	case *schema.StructType:
		if n, ok := next.(*schema.StructType); ok {
			return tableStruct(o, n, path, opts, changes)
		}
	case *schema.ArrayType:
		if n, ok := next.(*schema.ArrayType); ok {
			el, err := tableType(o.Element, n.Element, path, joinFieldPath(fieldPath, "element"), opts, changes)
			if err != nil {
				return nil, err
			}
			return &schema.ArrayType{Element: el, ContainsNull: n.ContainsNull}, nil
		}
	case *schema.MapType:
		if n, ok := next.(*schema.MapType); ok {
			k, err := tableType(o.Key, n.Key, path, joinFieldPath(fieldPath, "key"), opts, changes)
			if err != nil {
				return nil, err
			}
			v, err := tableType(o.Value, n.Value, path, joinFieldPath(fieldPath, "value"), opts, changes)
			if err != nil {
				return nil, err
			}
			return &schema.MapType{Key: k, Value: v, ValueContainsNull: n.ValueContainsNull}, nil
		}
	default:
		if schema.EqualType(old, next) {
			return next, nil
		}
		if schema.EqualType(Type(old, next, opts), next) {
			*changes = append(*changes, Change{Path: path, FieldPath: fieldPath, From: old, To: next})
			return next, nil
		}
	}
	where := strings.Join(path, ".")
	if fieldPath != "" {
		where += " (" + fieldPath + ")"
	}
	return nil, fmt.Errorf("%w: column %s would change from %s to %s", ErrNotWidening, where, old, next)
}

func cloneMetadata(m map[string]any) map[string]any {
	out := make(map[string]any, len(m)+1)
	for k, v := range m {
		out[k] = v
	}
	return out
}
