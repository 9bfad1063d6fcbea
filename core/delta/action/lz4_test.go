package action

import (
	"bytes"
	"errors"
	"strings"
	"testing"

	"github.com/parquet-go/parquet-go"
)

// TestCheckpointLZ4RawRefused: a checkpoint whose pages are LZ4_RAW
// compressed is refused (parquet-go v0.32 decodes such pages wrongly), not
// read into a possibly wrong file list.
func TestCheckpointLZ4RawRefused(t *testing.T) {
	type row struct {
		Txn struct {
			AppID   string `parquet:"appId"`
			Version int64  `parquet:"version"`
		} `parquet:"txn,optional"`
	}
	var buf bytes.Buffer
	w := parquet.NewGenericWriter[row](&buf, parquet.Compression(&parquet.Lz4Raw))
	if _, err := w.Write([]row{{}}); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	err := ReadParquet(buf.Bytes(), func(Action) error { return nil })
	if !errors.Is(err, ErrMalformedAction) || !strings.Contains(err.Error(), "LZ4_RAW") {
		t.Fatalf("ReadParquet of an LZ4_RAW checkpoint: %v", err)
	}
}
