package logkey

import (
	"fmt"
	"reflect"
	"slices"
	"testing"
)

func TestParse(t *testing.T) {
	const v = "00000000000000000012"
	tests := []struct {
		key  string
		want File
		ok   bool
	}{
		{Dir + v + ".json", File{Key: Dir + v + ".json", Version: 12, Kind: Commit}, true},
		{Dir + v + ".checkpoint.parquet", File{Key: Dir + v + ".checkpoint.parquet", Version: 12, Kind: Checkpoint}, true},
		{Dir + v + ".checkpoint.0000000002.0000000003.parquet",
			File{Key: Dir + v + ".checkpoint.0000000002.0000000003.parquet", Version: 12, Kind: MultiPartCheckpoint, Part: 2, Parts: 3}, true},
		{Dir + v + ".checkpoint.80a083e8-7026-4e79-81be-64bd76c43a11.json",
			File{Key: Dir + v + ".checkpoint.80a083e8-7026-4e79-81be-64bd76c43a11.json", Version: 12, Kind: V2Checkpoint}, true},
		{Dir + v + ".checkpoint.0000000004.0000000003.parquet", File{}, false}, // part past the count
		{Dir + v + ".crc", File{}, false},
		{Dir + "_last_checkpoint", File{}, false},
		{Dir + "_sidecars/" + v + ".json", File{}, false},
		{v + ".json", File{}, false},                      // not under the log
		{Dir + "0000000000000000001.json", File{}, false}, // 19 digits
		{Dir + "-0000000000000000001.json", File{}, false},
		{Dir + "+0000000000000000001.json", File{}, false}, // found by FuzzParse
	}
	for _, tc := range tests {
		got, ok := Parse(tc.key)
		if ok != tc.ok || got != tc.want {
			t.Errorf("Parse(%q) = %+v, %v; want %+v, %v", tc.key, got, ok, tc.want, tc.ok)
		}
	}
}

// A listing keeps commits, single-file checkpoints and the multi-part
// checkpoints whose parts are all there.
func TestListing(t *testing.T) {
	l := NewListing()
	add := func(name string) {
		f, ok := Parse(Dir + name)
		if !ok {
			t.Fatalf("Parse(%q) failed", name)
		}
		l.Add(f)
	}
	for v := range 5 {
		add(fmt.Sprintf("%020d.json", v))
	}
	add(fmt.Sprintf("%020d.checkpoint.parquet", 2))
	add(fmt.Sprintf("%020d.checkpoint.%010d.%010d.parquet", 4, 1, 2))
	add(fmt.Sprintf("%020d.checkpoint.%010d.%010d.parquet", 4, 2, 2))
	add(fmt.Sprintf("%020d.checkpoint.%010d.%010d.parquet", 6, 1, 2)) // incomplete
	l.Finish()
	var versions []int64
	for v := range l.Checkpoints {
		versions = append(versions, v)
	}
	slices.Sort(versions)
	if len(l.Commits) != 5 || l.MaxVersion != 4 || !reflect.DeepEqual(versions, []int64{2, 4}) || len(l.Checkpoints[4]) != 2 || l.Checkpoints[4][0].Part != 1 {
		t.Fatalf("commits %v, checkpoints %v, max %d", l.Commits, l.Checkpoints, l.MaxVersion)
	}
	if !AfterVersions(Dir+"_last_checkpoint") || AfterVersions(Dir+"00000000000000000001.json") {
		t.Fatal("AfterVersions")
	}
}

// Parse never panics, and whatever it accepts is a key under the log with
// the version it names.
func FuzzParse(f *testing.F) {
	f.Add(Dir + "00000000000000000012.json")
	f.Add(Dir + "00000000000000000012.checkpoint.0000000001.0000000002.parquet")
	f.Add(Dir + "00000000000000000012.checkpoint.80a083e8-7026-4e79-81be-64bd76c43a11.parquet")
	f.Fuzz(func(t *testing.T, key string) {
		got, ok := Parse(key)
		if !ok {
			return
		}
		if got.Key != key || got.Version < 0 || got.Kind < Commit || got.Kind > V2Checkpoint ||
			key[len(Dir):len(Dir)+20] != fmt.Sprintf("%020d", got.Version) {
			t.Fatalf("Parse(%q) = %+v", key, got)
		}
	})
}
