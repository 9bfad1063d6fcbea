package ingest

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/tributary-io/tributary/core/objstore"
)

// sourceKey is the checkpoint object recording the source a stream reads.
const sourceKey = "source.json"

type sourceRecord struct {
	Source string `json:"source"`
}

// checkSource records the stream's source location in its checkpoint on
// first use and refuses a changed one: the file state and batch plans are
// paths relative to the source, so a stream cannot move to another source
// without a full refresh (SPEC §8). It runs once per engine.
func (e *Engine) checkSource(ctx context.Context) error {
	if e.sourceChecked || e.Config.SourceURI == "" {
		return nil
	}
	data, err := json.Marshal(sourceRecord{Source: e.Config.SourceURI})
	if err != nil {
		return err
	}
	err = e.Checkpoint.PutIfAbsent(ctx, sourceKey, bytes.NewReader(data))
	if errors.Is(err, objstore.ErrExists) {
		rc, gerr := e.Checkpoint.Get(ctx, sourceKey)
		if gerr != nil {
			return fmt.Errorf("reading the checkpoint's source record: %w", gerr)
		}
		var rec sourceRecord
		derr := json.NewDecoder(rc).Decode(&rec)
		rc.Close()
		if derr != nil {
			return fmt.Errorf("decoding the checkpoint's source record: %w", derr)
		}
		if rec.Source != e.Config.SourceURI {
			return fmt.Errorf("%w: the checkpoint belongs to source %s, the stream now reads %s", ErrFullRefreshNeeded, rec.Source, e.Config.SourceURI)
		}
		err = nil
	}
	if err != nil {
		return fmt.Errorf("recording the stream's source in its checkpoint: %w", err)
	}
	e.sourceChecked = true
	return nil
}
