package progress

import (
	"bytes"
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"testing"
	"time"
)

var update = flag.Bool("update", false, "rewrite golden files")

func TestProgressEMFGolden(t *testing.T) {
	p := Progress{
		StreamID: "events", BatchID: 7, Timestamp: time.Date(2026, 11, 29, 12, 0, 0, 0, time.UTC),
		NumInputFiles: 3, NumInputBytes: 3 << 20, NumInputRows: 12345, NumRescuedRows: 2,
		InputRowsPerSecond: 1234.5, ProcessedRowsPerSecond: 2469,
		DurationMs:          map[string]int64{"planBatch": 12, "writeFiles": 4000, "commitLog": 35, "triggerExecution": 4100},
		NumFilesOutstanding: 40, NumBytesOutstanding: 40 << 20, ApproximateQueueSize: 17,
		TableVersion: 9, NumOutputFiles: 1, NumOutputBytes: 1 << 20, CommitAttempts: 1,
	}
	var b bytes.Buffer
	if err := p.WriteEMF(&b); err != nil {
		t.Fatal(err)
	}
	var doc map[string]any
	if err := json.Unmarshal(b.Bytes(), &doc); err != nil {
		t.Fatalf("not one JSON document: %v", err)
	}
	// Every declared metric must have a value at the top level (EMF rule).
	aws := doc["_aws"].(map[string]any)
	for _, m := range aws["CloudWatchMetrics"].([]any)[0].(map[string]any)["Metrics"].([]any) {
		name := m.(map[string]any)["Name"].(string)
		if _, ok := doc[name]; !ok {
			t.Errorf("metric %s declared without a value", name)
		}
	}
	golden := filepath.Join("testdata", "progress.emf.json")
	if *update {
		os.WriteFile(golden, b.Bytes(), 0o644)
	}
	want, err := os.ReadFile(golden)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(b.Bytes(), want) {
		t.Fatalf("EMF line changed:\n got %s\nwant %s", b.Bytes(), want)
	}
}

func TestPerSecond(t *testing.T) {
	tests := []struct {
		n    int64
		d    time.Duration
		want float64
	}{
		{100, 2 * time.Second, 50},
		{3, 1500 * time.Millisecond, 2},
		{100, 0, 0},
		{100, -time.Second, 0},
		{0, time.Second, 0},
	}
	for _, tc := range tests {
		if got := PerSecond(tc.n, tc.d); got != tc.want {
			t.Errorf("PerSecond(%d, %v) = %v, want %v", tc.n, tc.d, got, tc.want)
		}
	}
}
