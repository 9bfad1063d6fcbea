package convert

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/tributary-io/tributary/core/formats"
)

// TestSampleWithSize: a local file sampled with its listed size (read
// whole in one read), with a stale one, or without one infers the same
// schema and counts the same files, bytes and records; a missing file is
// judged as without a size; as a trial a failure is returned unjudged,
// and a good file samples as when not a trial.
func TestSampleWithSize(t *testing.T) {
	json, err := formats.Lookup("json")
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	data := "{\"a\":1,\"b\":\"x\"}\n\n{\"a\":2.5,\"c\":[1]}\n"
	if err := os.WriteFile(filepath.Join(dir, "f.json"), []byte(data), 0o644); err != nil {
		t.Fatal(err)
	}
	c := &Converter{Source: Source{Store: localStore{localDir{dir: dir}}, Format: json}, Policy: Policy{IgnoreMissing: true}}
	opts := formats.InferOptions{InferColumnTypes: true}
	sample := func(f SampleFile) (string, formats.Sample, error) {
		inf := json.NewInferrer(opts)
		err := c.Sample(context.Background(), inf, f)
		return inf.Schema().String(), inf.Sampled(), err
	}
	want, wantSampled, err := sample(SampleFile{Path: "f.json", Size: -1})
	if err != nil || wantSampled.Records != 2 || wantSampled.Bytes != int64(len(data)) {
		t.Fatalf("without a size: %v %+v", err, wantSampled)
	}
	for _, size := range []int64{int64(len(data)), 0, 5, int64(len(data)) + 7, 1 << 20, -1} {
		for _, trial := range []bool{false, true} {
			got, gotSampled, err := sample(SampleFile{Path: "f.json", Size: size, Trial: trial})
			if err != nil || got != want || gotSampled != wantSampled {
				t.Errorf("size %d trial %v: %s %+v %v, want %s %+v", size, trial, got, gotSampled, err, want, wantSampled)
			}
		}
	}
	if _, s, err := sample(SampleFile{Path: "gone.json", Size: 10}); err != nil || s.Files != 0 {
		t.Errorf("missing file with ignoreMissingFiles: %v %+v, want skipped", err, s)
	}
	var fe *FileError
	if _, _, err := sample(SampleFile{Path: "gone.json", Size: 10, Trial: true}); !errors.As(err, &fe) || fe.Fault != FaultMissing {
		t.Errorf("missing file in a trial: %v, want the FileError unjudged", err)
	}
}
