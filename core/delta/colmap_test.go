package delta

import "testing"

// TestColumnMappingMode: the property counts only with protocol support.
func TestColumnMappingMode(t *testing.T) {
	conf := map[string]string{PropColumnMappingMode: "name"}
	tests := []struct {
		p    Protocol
		conf map[string]string
		want string
		ok   bool
	}{
		{Protocol{MinReaderVersion: 1, MinWriterVersion: 2}, conf, "none", true},
		{Protocol{MinReaderVersion: 2, MinWriterVersion: 5}, conf, "name", true},
		{Protocol{MinReaderVersion: 3, MinWriterVersion: 7}, conf, "none", true},
		{Protocol{MinReaderVersion: 3, MinWriterVersion: 7, ReaderFeatures: []string{FeatureColumnMapping}}, map[string]string{PropColumnMappingMode: "ID"}, "id", true},
		{Protocol{MinReaderVersion: 2, MinWriterVersion: 5}, map[string]string{PropColumnMappingMode: "position"}, "", false},
	}
	for _, tc := range tests {
		s := &Snapshot{Protocol: tc.p, Metadata: Metadata{Configuration: tc.conf}}
		got, err := s.ColumnMappingMode()
		if (err == nil) != tc.ok || got != tc.want {
			t.Errorf("%+v %v: %q, %v", tc.p, tc.conf, got, err)
		}
	}
}
