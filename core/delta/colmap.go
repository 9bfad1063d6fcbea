package delta

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/tributary-io/tributary/core/schema"
)

// Column mapping (PROTOCOL.md "Column Mapping").
const (
	PropColumnMappingMode = "delta.columnMapping.mode"
	// MetaPhysicalName and MetaColumnID are the field metadata keys of a
	// column's physical name and id.
	MetaPhysicalName = "delta.columnMapping.physicalName"
	MetaColumnID     = "delta.columnMapping.id"
)

// Column mapping modes.
const (
	ColumnMappingNone = "none"
	ColumnMappingName = "name"
	ColumnMappingID   = "id"
)

// ColumnMappingMode returns the table's delta.columnMapping.mode ("none",
// "name" or "id"). The property counts only when the protocol supports
// column mapping (reader version 2, or 3 with the columnMapping feature).
func (s *Snapshot) ColumnMappingMode() (string, error) {
	p := s.Protocol
	if !(p.MinReaderVersion == 2 || p.MinReaderVersion == 3 && p.HasReaderFeature(FeatureColumnMapping)) {
		return ColumnMappingNone, nil
	}
	v, ok := s.Metadata.Configuration[PropColumnMappingMode]
	if !ok {
		return ColumnMappingNone, nil
	}
	switch m := strings.ToLower(strings.TrimSpace(v)); m {
	case ColumnMappingNone, ColumnMappingName, ColumnMappingID:
		return m, nil
	}
	return "", fmt.Errorf("%w: table property %s=%q (want none, name or id)", ErrUnsupportedProtocol, PropColumnMappingMode, v)
}

// PhysicalName returns the name a field has in data files, partition values
// and stats under the column mapping mode: its
// delta.columnMapping.physicalName in name and id modes, its name otherwise.
func PhysicalName(f schema.Field, mode string) string {
	if mode != ColumnMappingNone && mode != "" {
		if p, ok := f.Metadata[MetaPhysicalName].(string); ok && p != "" {
			return p
		}
	}
	return f.Name
}

// ColumnID returns a field's delta.columnMapping.id, ok=false when it has
// none.
func ColumnID(f schema.Field) (int, bool) {
	switch v := f.Metadata[MetaColumnID].(type) {
	case json.Number:
		n, err := v.Int64()
		return int(n), err == nil
	case float64:
		return int(v), true
	case int:
		return v, true
	case int64:
		return int(v), true
	}
	return 0, false
}
