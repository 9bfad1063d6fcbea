package lambdafn

import "testing"

func TestCatalogTableName(t *testing.T) {
	tests := []struct{ id, want string }{
		{"events", "events"},
		{"Clicks_2", "clicks_2"},
		{"orders-eu.v1", "orders_eu_v1"},
		{"ünï", "_n_"},
	}
	for _, tc := range tests {
		if got := CatalogTableName(tc.id); got != tc.want {
			t.Errorf("CatalogTableName(%q) = %q, want %q", tc.id, got, tc.want)
		}
	}
}
