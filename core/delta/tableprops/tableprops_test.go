package tableprops

import (
	"fmt"
	"testing"

	"github.com/tributary-io/tributary/core/delta"
	"github.com/tributary-io/tributary/core/options/tableopts"
)

func TestMerge(t *testing.T) {
	tests := []struct {
		conf, props map[string]string
		want        string
		changed     bool
	}{
		{nil, nil, "map[]", false},
		{map[string]string{"a": "1"}, nil, "map[a:1]", false},
		{map[string]string{"a": "1"}, map[string]string{"a": "1"}, "map[a:1]", false},
		{map[string]string{"a": "1"}, map[string]string{"a": "2", "b": "3"}, "map[a:2 b:3]", true},
	}
	for _, tc := range tests {
		got, changed := Merge(tc.conf, tc.props)
		if fmt.Sprint(got) != tc.want || changed != tc.changed {
			t.Errorf("Merge(%v, %v) = %v, %v; want %s, %v", tc.conf, tc.props, got, changed, tc.want, tc.changed)
		}
	}
	conf := map[string]string{"a": "1"}
	Merge(conf, map[string]string{"a": "2"})
	if conf["a"] != "1" {
		t.Errorf("Merge modified its input")
	}
}

func TestUpgrade(t *testing.T) {
	on := map[string]string{delta.PropEnableTypeWidening: "true"}
	tests := []struct {
		name    string
		p       delta.Protocol
		conf    map[string]string
		want    string
		changed bool
	}{
		{"off", delta.Protocol{MinReaderVersion: 1, MinWriterVersion: 2}, nil, "{1 2 [] []}", false},
		{"legacy (1,2)", delta.Protocol{MinReaderVersion: 1, MinWriterVersion: 2}, on, "{3 7 [typeWidening] [appendOnly invariants typeWidening]}", true},
		{"(1,1)", delta.Protocol{MinReaderVersion: 1, MinWriterVersion: 1}, on, "{3 7 [typeWidening] [typeWidening]}", true},
		{"features", delta.Protocol{MinReaderVersion: 3, MinWriterVersion: 7, ReaderFeatures: []string{"timestampNtz"}, WriterFeatures: []string{"timestampNtz", "appendOnly"}}, on,
			"{3 7 [timestampNtz typeWidening] [timestampNtz appendOnly typeWidening]}", true},
		{"has it", delta.Protocol{MinReaderVersion: 3, MinWriterVersion: 7, ReaderFeatures: []string{"typeWidening"}, WriterFeatures: []string{"typeWidening"}}, on, "{3 7 [typeWidening] [typeWidening]}", false},
		{"preview", delta.Protocol{MinReaderVersion: 3, MinWriterVersion: 7, ReaderFeatures: []string{"typeWidening-preview"}, WriterFeatures: []string{"typeWidening-preview"}}, on, "{3 7 [typeWidening-preview] [typeWidening-preview]}", false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, changed := Upgrade(tc.p, tc.conf)
			if s := fmt.Sprintf("{%d %d %v %v}", got.MinReaderVersion, got.MinWriterVersion, got.ReaderFeatures, got.WriterFeatures); s != tc.want || changed != tc.changed {
				t.Errorf("got %s, %v; want %s, %v", s, changed, tc.want, tc.changed)
			}
		})
	}
}

func TestStatsOptions(t *testing.T) {
	tests := []struct {
		conf map[string]string
		want string
	}{
		{nil, "32 false []"},
		{map[string]string{tableopts.PropDataSkippingNumIndexedCols: "5"}, "5 false []"},
		{map[string]string{tableopts.PropDataSkippingNumIndexedCols: "-1"}, "-1 false []"},
		{map[string]string{tableopts.PropDataSkippingNumIndexedCols: "0"}, "0 true []"},
		{map[string]string{tableopts.PropDataSkippingNumIndexedCols: "0", tableopts.PropDataSkippingStatsColumns: "a, `b.c`.d"}, "0 false [[a] [b.c d]]"},
		{map[string]string{tableopts.PropDataSkippingNumIndexedCols: "x"}, "error"},
		{map[string]string{tableopts.PropDataSkippingNumIndexedCols: "-2"}, "error"},
		{map[string]string{tableopts.PropDataSkippingStatsColumns: "a,,b"}, "error"},
	}
	for _, tc := range tests {
		n, none, cols, err := StatsOptions(tc.conf)
		got := fmt.Sprintf("%d %v %v", n, none, cols)
		if err != nil {
			got = "error"
		}
		if got != tc.want {
			t.Errorf("StatsOptions(%v) = %s (%v), want %s", tc.conf, got, err, tc.want)
		}
	}
}
