package schema

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"strings"
)

// ErrUnknownType is wrapped by ParseDeltaJSON and ParseTypeName when a schema
// names a data type this package does not model (e.g. "variant", "void").
var ErrUnknownType = errors.New("schema: unknown data type")

// ParseDeltaJSON decodes a Delta schemaString (the JSON form of a struct type,
// as stored in a metaData action) into a StructType.
//
// Field metadata is kept verbatim; JSON numbers in it are decoded as
// json.Number so that large integers survive a round trip.
func ParseDeltaJSON(s string) (*StructType, error) {
	dec := json.NewDecoder(strings.NewReader(s))
	dec.UseNumber()
	var raw any
	if err := dec.Decode(&raw); err != nil {
		return nil, fmt.Errorf("schema: decode schemaString: %w", err)
	}
	if dec.More() {
		return nil, fmt.Errorf("schema: decode schemaString: trailing data after the schema object")
	}
	t, err := typeFromJSON(raw, "")
	if err != nil {
		return nil, err
	}
	st, ok := t.(*StructType)
	if !ok {
		return nil, fmt.Errorf("schema: schemaString is a %s, want a struct", t.String())
	}
	return st, nil
}

// MarshalDeltaJSON encodes a StructType as a Delta schemaString.
func MarshalDeltaJSON(s *StructType) (string, error) {
	if s == nil {
		return "", errors.New("schema: marshal nil struct type")
	}
	v, err := typeToJSON(s, "")
	if err != nil {
		return "", err
	}
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return "", fmt.Errorf("schema: encode schemaString: %w", err)
	}
	return strings.TrimSuffix(buf.String(), "\n"), nil
}

// ParseTypeName parses a primitive type name as written in Delta's schema
// JSON: "long", "timestamp_ntz", "decimal(10,2)", …
func ParseTypeName(name string) (Type, error) {
	switch p := PrimitiveType(name); p {
	case String, Long, Integer, Short, Byte, Double, Float, Boolean, Binary,
		DateType, Timestamp, TimestampNTZ:
		return p, nil
	}
	if inner, ok := strings.CutPrefix(name, "decimal("); ok {
		inner, ok = strings.CutSuffix(inner, ")")
		if !ok {
			return nil, fmt.Errorf("%w: malformed decimal type %q", ErrUnknownType, name)
		}
		ps, ss, ok := strings.Cut(inner, ",")
		if !ok {
			return nil, fmt.Errorf("%w: malformed decimal type %q", ErrUnknownType, name)
		}
		p, err1 := strconv.Atoi(strings.TrimSpace(ps))
		sc, err2 := strconv.Atoi(strings.TrimSpace(ss))
		if err1 != nil || err2 != nil {
			return nil, fmt.Errorf("%w: malformed decimal type %q", ErrUnknownType, name)
		}
		d := DecimalType{Precision: p, Scale: sc}
		if err := validateDecimal(d); err != nil {
			return nil, err
		}
		return d, nil
	}
	return nil, fmt.Errorf("%w: %q", ErrUnknownType, name)
}

func validateDecimal(d DecimalType) error {
	if d.Precision < 1 || d.Precision > 38 || d.Scale < 0 || d.Scale > d.Precision {
		return fmt.Errorf("schema: invalid %s: need 1 <= precision <= 38 and 0 <= scale <= precision", d.String())
	}
	return nil
}

func where(path string) string {
	if path == "" {
		return "schema root"
	}
	return "field " + strconv.Quote(path)
}

func typeFromJSON(raw any, path string) (Type, error) {
	switch v := raw.(type) {
	case string:
		t, err := ParseTypeName(v)
		if err != nil {
			return nil, fmt.Errorf("schema: %s: %w", where(path), err)
		}
		return t, nil
	case map[string]any:
		kind, _ := v["type"].(string)
		switch kind {
		case "struct":
			fields, ok := v["fields"].([]any)
			if !ok && v["fields"] != nil {
				return nil, fmt.Errorf("schema: %s: struct \"fields\" is not an array", where(path))
			}
			st := &StructType{Fields: make([]Field, 0, len(fields))}
			seen := make(map[string]bool, len(fields))
			for i, rf := range fields {
				fm, ok := rf.(map[string]any)
				if !ok {
					return nil, fmt.Errorf("schema: %s: struct field %d is not an object", where(path), i)
				}
				name, ok := fm["name"].(string)
				if !ok {
					return nil, fmt.Errorf("schema: %s: struct field %d has no string \"name\"", where(path), i)
				}
				fpath := name
				if path != "" {
					fpath = path + "." + name
				}
				if seen[name] {
					return nil, fmt.Errorf("schema: %s: duplicate field name", where(fpath))
				}
				seen[name] = true
				rt, ok := fm["type"]
				if !ok {
					return nil, fmt.Errorf("schema: %s: missing \"type\"", where(fpath))
				}
				ft, err := typeFromJSON(rt, fpath)
				if err != nil {
					return nil, err
				}
				f := Field{Name: name, Type: ft, Nullable: true}
				if n, ok := fm["nullable"]; ok {
					b, ok := n.(bool)
					if !ok {
						return nil, fmt.Errorf("schema: %s: \"nullable\" is not a boolean", where(fpath))
					}
					f.Nullable = b
				}
				if md, ok := fm["metadata"]; ok && md != nil {
					m, ok := md.(map[string]any)
					if !ok {
						return nil, fmt.Errorf("schema: %s: \"metadata\" is not an object", where(fpath))
					}
					if len(m) > 0 {
						f.Metadata = m
					}
				}
				st.Fields = append(st.Fields, f)
			}
			return st, nil
		case "array":
			et, ok := v["elementType"]
			if !ok {
				return nil, fmt.Errorf("schema: %s: array without \"elementType\"", where(path))
			}
			e, err := typeFromJSON(et, path+".element")
			if err != nil {
				return nil, err
			}
			cn, err := optBool(v, "containsNull", path)
			if err != nil {
				return nil, err
			}
			return &ArrayType{Element: e, ContainsNull: cn}, nil
		case "map":
			kt, ok1 := v["keyType"]
			vt, ok2 := v["valueType"]
			if !ok1 || !ok2 {
				return nil, fmt.Errorf("schema: %s: map without \"keyType\" or \"valueType\"", where(path))
			}
			k, err := typeFromJSON(kt, path+".key")
			if err != nil {
				return nil, err
			}
			val, err := typeFromJSON(vt, path+".value")
			if err != nil {
				return nil, err
			}
			vcn, err := optBool(v, "valueContainsNull", path)
			if err != nil {
				return nil, err
			}
			return &MapType{Key: k, Value: val, ValueContainsNull: vcn}, nil
		default:
			return nil, fmt.Errorf("schema: %s: %w: complex type %q", where(path), ErrUnknownType, kind)
		}
	default:
		return nil, fmt.Errorf("schema: %s: type is neither a string nor an object", where(path))
	}
}

func optBool(m map[string]any, key, path string) (bool, error) {
	v, ok := m[key]
	if !ok {
		return true, nil
	}
	b, ok := v.(bool)
	if !ok {
		return false, fmt.Errorf("schema: %s: %q is not a boolean", where(path), key)
	}
	return b, nil
}

// jsonField keeps Delta's key order (name, type, nullable, metadata).
type jsonField struct {
	Name     string         `json:"name"`
	Type     any            `json:"type"`
	Nullable bool           `json:"nullable"`
	Metadata map[string]any `json:"metadata"`
}

type jsonStruct struct {
	Type   string      `json:"type"`
	Fields []jsonField `json:"fields"`
}

type jsonArray struct {
	Type         string `json:"type"`
	ElementType  any    `json:"elementType"`
	ContainsNull bool   `json:"containsNull"`
}

type jsonMap struct {
	Type              string `json:"type"`
	KeyType           any    `json:"keyType"`
	ValueType         any    `json:"valueType"`
	ValueContainsNull bool   `json:"valueContainsNull"`
}

func typeToJSON(t Type, path string) (any, error) {
	switch v := t.(type) {
	case PrimitiveType:
		if _, err := ParseTypeName(string(v)); err != nil {
			return nil, fmt.Errorf("schema: %s: %w", where(path), err)
		}
		return string(v), nil
	case DecimalType:
		if err := validateDecimal(v); err != nil {
			return nil, fmt.Errorf("schema: %s: %w", where(path), err)
		}
		return v.String(), nil
	case *StructType:
		if v == nil {
			return nil, fmt.Errorf("schema: %s: nil struct type", where(path))
		}
		js := jsonStruct{Type: "struct", Fields: make([]jsonField, 0, len(v.Fields))}
		for _, f := range v.Fields {
			fpath := f.Name
			if path != "" {
				fpath = path + "." + f.Name
			}
			if f.Type == nil {
				return nil, fmt.Errorf("schema: %s: nil type", where(fpath))
			}
			ft, err := typeToJSON(f.Type, fpath)
			if err != nil {
				return nil, err
			}
			md := f.Metadata
			if md == nil {
				md = map[string]any{}
			}
			js.Fields = append(js.Fields, jsonField{Name: f.Name, Type: ft, Nullable: f.Nullable, Metadata: md})
		}
		return js, nil
	case *ArrayType:
		if v == nil || v.Element == nil {
			return nil, fmt.Errorf("schema: %s: array without element type", where(path))
		}
		e, err := typeToJSON(v.Element, path+".element")
		if err != nil {
			return nil, err
		}
		return jsonArray{Type: "array", ElementType: e, ContainsNull: v.ContainsNull}, nil
	case *MapType:
		if v == nil || v.Key == nil || v.Value == nil {
			return nil, fmt.Errorf("schema: %s: map without key or value type", where(path))
		}
		k, err := typeToJSON(v.Key, path+".key")
		if err != nil {
			return nil, err
		}
		val, err := typeToJSON(v.Value, path+".value")
		if err != nil {
			return nil, err
		}
		return jsonMap{Type: "map", KeyType: k, ValueType: val, ValueContainsNull: v.ValueContainsNull}, nil
	default:
		return nil, fmt.Errorf("schema: %s: %w: %T", where(path), ErrUnknownType, t)
	}
}
