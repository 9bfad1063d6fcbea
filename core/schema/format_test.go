package schema

import "testing"

func TestFieldIndexFold(t *testing.T) {
	s := &StructType{Fields: []Field{{Name: "Id", Type: Long}, {Name: "id", Type: String}, {Name: "Name", Type: String}}}
	for name, want := range map[string]int{"id": 1, "Id": 0, "ID": 0, "name": 2, "missing": -1} {
		if got := s.FieldIndexFold(name); got != want {
			t.Errorf("FieldIndexFold(%q) = %d, want %d", name, got, want)
		}
	}
}
