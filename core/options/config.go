package options

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"github.com/tributary-io/tributary/core/options/location"
	"io"
	"strings"
)

// Config is a multi-stream configuration file, parsed and validated.
type Config struct {
	// Streams are the configured streams, in file order.
	Streams []*Stream
}

// StreamConfig is one entry of a configuration file:
//
//	{"streams": [{"id": "bronze_events", "source": "s3://raw/events/",
//	  "table": "s3://lake/bronze/events",
//	  "checkpointLocation": "s3://lake/_checkpoints/bronze_events",
//	  "options": {"cloudFiles.format": "json", ...}}]}
//
// Option values may be JSON strings, numbers or booleans; they are passed to
// Parse as strings.
type StreamConfig struct {
	// ID is the stream id.
	ID string `json:"id"`
	// Source is the source prefix or, for a Delta source, table directory.
	Source string `json:"source"`
	// Table is the target Delta table directory.
	Table string `json:"table"`
	// CheckpointLocation is the checkpoint/state location (or the
	// checkpointLocation option).
	CheckpointLocation string `json:"checkpointLocation,omitempty"`
	// SchemaLocation is the schema location (or cloudFiles.schemaLocation).
	SchemaLocation string `json:"schemaLocation,omitempty"`
	// Format is the source format: cloudFiles (default) or delta.
	Format string `json:"format,omitempty"`
	// Schema is a user schema in DDL; empty means inference.
	Schema string `json:"schema,omitempty"`
	// Options are the stream's options.
	Options map[string]json.RawMessage `json:"options,omitempty"`
}

// LoadConfig reads a JSON configuration file, parses every stream with Parse
// and runs Validate. Unknown fields are refused. All errors are reported,
// joined; each wraps ErrInvalidOption.
func LoadConfig(r io.Reader) (*Config, error) {
	var file struct {
		Streams []StreamConfig `json:"streams"`
	}
	dec := json.NewDecoder(r)
	dec.DisallowUnknownFields()
	if err := dec.Decode(&file); err != nil {
		return nil, fmt.Errorf("%w: config: %w", ErrInvalidOption, err)
	}
	if _, err := dec.Token(); err != io.EOF {
		return nil, fmt.Errorf("%w: config: unexpected data after the configuration object", ErrInvalidOption)
	}
	if len(file.Streams) == 0 {
		return nil, fmt.Errorf("%w: config: no streams", ErrInvalidOption)
	}
	cfg := &Config{}
	var all []error
	for i, sc := range file.Streams {
		raw, err := optionStrings(sc)
		if err != nil {
			all = append(all, err)
			continue
		}
		s, err := Parse(raw, Locations{
			StreamID:           sc.ID,
			Source:             sc.Source,
			Table:              sc.Table,
			CheckpointLocation: sc.CheckpointLocation,
			SchemaLocation:     sc.SchemaLocation,
			SourceFormat:       sc.Format,
			UserSchema:         sc.Schema,
		})
		if err != nil {
			all = append(all, fmt.Errorf("config: streams[%d]: %w", i, err))
			continue
		}
		cfg.Streams = append(cfg.Streams, s)
	}
	if len(all) > 0 {
		return nil, errors.Join(all...)
	}
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	return cfg, nil
}

// optionStrings turns JSON option values into strings.
func optionStrings(sc StreamConfig) (map[string]string, error) {
	raw := make(map[string]string, len(sc.Options))
	for k, v := range sc.Options {
		t := bytes.TrimSpace(v)
		switch {
		case len(t) > 0 && t[0] == '"':
			var s string
			if err := json.Unmarshal(t, &s); err != nil {
				return nil, &OptionError{Stream: sc.ID, Option: k, Value: string(t), Reason: err.Error(), Kind: ErrInvalidOption}
			}
			raw[k] = s
		case bytes.Equal(t, []byte("true")), bytes.Equal(t, []byte("false")):
			raw[k] = string(t)
		case len(t) > 0 && (t[0] == '-' || t[0] >= '0' && t[0] <= '9'):
			raw[k] = string(t)
		default:
			return nil, &OptionError{Stream: sc.ID, Option: k, Value: string(t), Reason: "option values are strings, numbers or booleans", Kind: ErrInvalidOption}
		}
	}
	return raw, nil
}

// Stream returns the stream with the given id.
func (c *Config) Stream(id string) (*Stream, bool) {
	for _, s := range c.Streams {
		if s.ID == id {
			return s, true
		}
	}
	return nil, false
}

// streamLocs are the parsed locations of a stream.
type streamLocs struct {
	s                             *Stream
	src, table, ckpt, schema, bad location.Location
	hasSchema, hasBad             bool
}

func locsOf(s *Stream) streamLocs {
	l := streamLocs{s: s}
	l.src, _ = location.Parse(s.Source)
	l.table, _ = location.Parse(s.Table)
	l.ckpt, _ = location.Parse(s.Sink.CheckpointLocation)
	if s.CloudFiles.SchemaLocation != "" {
		l.schema, _ = location.Parse(s.CloudFiles.SchemaLocation)
		l.hasSchema = true
	}
	if s.Reader.BadRecordsPath != "" {
		l.bad, _ = location.Parse(s.Reader.BadRecordsPath)
		l.hasBad = true
	}
	return l
}

// real returns l with the real paths of its locations (RealLocation).
func (l streamLocs) real() streamLocs {
	l.src, l.table, l.ckpt = location.Real(l.src), location.Real(l.table), location.Real(l.ckpt)
	l.schema, l.bad = location.Real(l.schema), location.Real(l.bad)
	return l
}

// Validate checks the rules between streams: stream ids are unique
// (case-insensitively); no two streams share or nest checkpoint or schema
// locations; no stream keeps state or bad records inside another stream's table (other than
// under a _ folder) or source directory; two streams writing one table do not
// share a txnAppId. The locations are compared as written and, when that
// finds nothing, with symbolic links resolved. Errors name both streams and
// wrap ErrSharedLocation.
func (c *Config) Validate() error {
	locs := make([]streamLocs, len(c.Streams))
	for i, s := range c.Streams {
		locs[i] = locsOf(s)
	}
	if err := validateLocs(locs); err != nil {
		return err
	}
	for i := range locs {
		locs[i] = locs[i].real()
	}
	return validateLocs(locs)
}

// validateLocs applies Validate's rules to the streams' locations.
func validateLocs(locs []streamLocs) error {
	var all []error
	add := func(a *Stream, option, value string, format string, args ...any) {
		all = append(all, &OptionError{Stream: a.ID, Option: option, Value: value, Reason: fmt.Sprintf(format, args...), Kind: ErrSharedLocation})
	}
	for i := range locs {
		for j := range locs {
			if i == j {
				continue
			}
			a, b := locs[i], locs[j]
			if i < j {
				if strings.EqualFold(a.s.ID, b.s.ID) {
					add(b.s, "id", b.s.ID, "stream id is also used by stream #%d %q: two streams never share an id", i+1, a.s.ID)
				}
				if a.ckpt.Overlaps(b.ckpt) {
					add(b.s, "checkpointLocation", b.s.Sink.CheckpointLocation, "%s the checkpointLocation %q of stream %q: each stream needs its own", overlapWord(a.ckpt, b.ckpt), a.s.Sink.CheckpointLocation, a.s.ID)
				}
				if a.hasSchema && b.hasSchema && a.schema.Overlaps(b.schema) {
					add(b.s, "cloudFiles.schemaLocation", b.s.CloudFiles.SchemaLocation, "%s the cloudFiles.schemaLocation %q of stream %q: each stream needs its own", overlapWord(a.schema, b.schema), a.s.CloudFiles.SchemaLocation, a.s.ID)
				}
				if a.table == b.table && a.s.Sink.TxnAppID == b.s.Sink.TxnAppID {
					add(b.s, "txnAppId", b.s.Sink.TxnAppID, "is also the txnAppId of stream %q writing the same table: their batches would skip each other", a.s.ID)
				}
			}
			// Ordered pairs: a's state against b's locations.
			if a.hasSchema && a.schema.Overlaps(b.ckpt) {
				add(a.s, "cloudFiles.schemaLocation", a.s.CloudFiles.SchemaLocation, "%s the checkpointLocation %q of stream %q", overlapWord(b.ckpt, a.schema), b.s.Sink.CheckpointLocation, b.s.ID)
			}
			for _, st := range []struct {
				option, value string
				loc           location.Location
				ok            bool
			}{
				{"checkpointLocation", a.s.Sink.CheckpointLocation, a.ckpt, true},
				{"cloudFiles.schemaLocation", a.s.CloudFiles.SchemaLocation, a.schema, a.hasSchema},
				{"badRecordsPath", a.s.Reader.BadRecordsPath, a.bad, a.hasBad},
			} {
				if !st.ok || a.table == b.table {
					continue
				}
				if rel, in := b.table.Rel(st.loc); in && (rel == "" || !location.SafeInTable(rel)) {
					add(a.s, st.option, st.value, "is inside the table %s of stream %q other than under a folder starting with _ (VACUUM would delete it)", b.table, b.s.ID)
				} else if st.loc.Contains(b.table) {
					add(a.s, st.option, st.value, "contains the table %s of stream %q", b.table, b.s.ID)
				}
				if b.s.SourceFormat == SourceCloudFiles && b.src.Contains(st.loc) {
					add(a.s, st.option, st.value, "is inside the source directory %s of stream %q: its files would be ingested as data", b.src, b.s.ID)
				}
			}
		}
	}
	return errors.Join(all...)
}

func overlapWord(other, mine location.Location) string {
	switch {
	case other == mine:
		return "is the same as"
	case other.Contains(mine):
		return "is nested inside"
	}
	return "contains"
}
