// Package action holds the actions of the Delta Lake transaction log
// (PROTOCOL.md "Actions"): their types, their JSON form in commit files
// (ParseAction, ReadActions, EncodeActions) and their Parquet form in
// checkpoints (ReadParquet, column by column; ReadParquetRows, its
// row-at-a-time reference). Package delta re-exports the types and builds
// snapshots and commits on them.
package action

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"maps"
	"slices"
	"strconv"
)

// Protocol is the protocol action: the reader/writer versions (and, from
// reader 3 / writer 7 on, the table features) a client must implement.
type Protocol struct {
	MinReaderVersion int      `json:"minReaderVersion"`
	MinWriterVersion int      `json:"minWriterVersion"`
	ReaderFeatures   []string `json:"readerFeatures,omitempty"`
	WriterFeatures   []string `json:"writerFeatures,omitempty"`
}

// MarshalJSON writes readerFeatures whenever minReaderVersion is 3 and
// writerFeatures whenever minWriterVersion is 7 (even when empty), as the
// protocol requires.
func (p Protocol) MarshalJSON() ([]byte, error) {
	type out struct {
		MinReaderVersion int       `json:"minReaderVersion"`
		MinWriterVersion int       `json:"minWriterVersion"`
		ReaderFeatures   *[]string `json:"readerFeatures,omitempty"`
		WriterFeatures   *[]string `json:"writerFeatures,omitempty"`
	}
	o := out{MinReaderVersion: p.MinReaderVersion, MinWriterVersion: p.MinWriterVersion}
	if p.MinReaderVersion >= 3 || len(p.ReaderFeatures) > 0 {
		rf := NonNilSlice(p.ReaderFeatures)
		o.ReaderFeatures = &rf
	}
	if p.MinWriterVersion >= 7 || len(p.WriterFeatures) > 0 {
		wf := NonNilSlice(p.WriterFeatures)
		o.WriterFeatures = &wf
	}
	return json.Marshal(o)
}

// HasReaderFeature reports whether the protocol lists the reader feature.
func (p *Protocol) HasReaderFeature(name string) bool {
	return slices.Contains(p.ReaderFeatures, name)
}

// HasWriterFeature reports whether the protocol lists the writer feature.
func (p *Protocol) HasWriterFeature(name string) bool {
	return slices.Contains(p.WriterFeatures, name)
}

// Format names the data files' format (always "parquet" for Delta).
type Format struct {
	Provider string            `json:"provider"`
	Options  map[string]string `json:"options"`
}

// Metadata is the metaData action: schema, partitioning and table properties.
type Metadata struct {
	ID               string            `json:"id"`
	Name             string            `json:"name,omitempty"`
	Description      string            `json:"description,omitempty"`
	Format           Format            `json:"format"`
	SchemaString     string            `json:"schemaString"`
	PartitionColumns []string          `json:"partitionColumns"`
	Configuration    map[string]string `json:"configuration"`
	CreatedTime      *int64            `json:"createdTime,omitempty"`
}

// MarshalJSON writes empty (never null) options, partition columns and
// configuration.
func (m Metadata) MarshalJSON() ([]byte, error) {
	type plain Metadata
	c := plain(m)
	if c.Format.Provider == "" {
		c.Format.Provider = "parquet"
	}
	c.Format.Options = NonNilMap(c.Format.Options)
	c.PartitionColumns = NonNilSlice(c.PartitionColumns)
	c.Configuration = NonNilMap(c.Configuration)
	return json.Marshal(c)
}

// DeletionVector is a deletion vector descriptor on an add or remove.
type DeletionVector struct {
	StorageType    string `json:"storageType"`
	PathOrInlineDv string `json:"pathOrInlineDv"`
	Offset         *int32 `json:"offset,omitempty"`
	SizeInBytes    int32  `json:"sizeInBytes"`
	Cardinality    int64  `json:"cardinality"`
	MaxRowIndex    *int64 `json:"maxRowIndex,omitempty"`
}

// UniqueID identifies the deletion vector within the table
// (storageType + pathOrInlineDv, plus "@offset" when an offset is set).
func (d *DeletionVector) UniqueID() string {
	if d == nil {
		return ""
	}
	id := d.StorageType + d.PathOrInlineDv
	if d.Offset != nil {
		id += "@" + strconv.FormatInt(int64(*d.Offset), 10)
	}
	return id
}

// Add is the add action: a data file that is part of the table.
type Add struct {
	// Path is a relative (or, in shallow clones, absolute) URL-encoded URI.
	Path string `json:"path"`
	// PartitionValues maps each partition column (its physical name under
	// column mapping) to its serialised value; nil is a NULL partition value.
	PartitionValues         map[string]*string `json:"partitionValues"`
	Size                    int64              `json:"size"`
	ModificationTime        int64              `json:"modificationTime"`
	DataChange              bool               `json:"dataChange"`
	Stats                   string             `json:"stats,omitempty"`
	Tags                    map[string]string  `json:"tags,omitempty"`
	DeletionVector          *DeletionVector    `json:"deletionVector,omitempty"`
	BaseRowID               *int64             `json:"baseRowId,omitempty"`
	DefaultRowCommitVersion *int64             `json:"defaultRowCommitVersion,omitempty"`
	ClusteringProvider      string             `json:"clusteringProvider,omitempty"`
}

// MarshalJSON writes an empty (never null) partitionValues map.
func (a Add) MarshalJSON() ([]byte, error) {
	type plain Add
	c := plain(a)
	c.PartitionValues = NonNilMap(c.PartitionValues)
	return json.Marshal(c)
}

// ParseStats decodes the add's stats JSON string; it returns nil, nil when
// the add carries no stats.
func (a *Add) ParseStats() (*Stats, error) {
	if a.Stats == "" {
		return nil, nil
	}
	s, err := ParseStats(a.Stats)
	if err != nil {
		return nil, fmt.Errorf("delta: stats of add %q: %w", a.Path, err)
	}
	return s, nil
}

// PartitionValuesOf converts non-null partition values to the form of
// Add.PartitionValues.
func PartitionValuesOf(m map[string]string) map[string]*string {
	out := make(map[string]*string, len(m))
	for k, v := range m {
		out[k] = &v
	}
	return out
}

// Remove is the remove action: a tombstone for a file no longer in the table.
type Remove struct {
	Path                    string             `json:"path"`
	DeletionTimestamp       int64              `json:"deletionTimestamp,omitempty"`
	DataChange              bool               `json:"dataChange"`
	ExtendedFileMetadata    bool               `json:"extendedFileMetadata,omitempty"`
	PartitionValues         map[string]*string `json:"partitionValues,omitempty"`
	Size                    int64              `json:"size,omitempty"`
	Stats                   string             `json:"stats,omitempty"`
	Tags                    map[string]string  `json:"tags,omitempty"`
	DeletionVector          *DeletionVector    `json:"deletionVector,omitempty"`
	BaseRowID               *int64             `json:"baseRowId,omitempty"`
	DefaultRowCommitVersion *int64             `json:"defaultRowCommitVersion,omitempty"`
}

// Txn is the txn action: an application's transaction identifier.
type Txn struct {
	AppID       string `json:"appId"`
	Version     int64  `json:"version"`
	LastUpdated *int64 `json:"lastUpdated,omitempty"`
}

// CDC is the cdc action: a change data file.
type CDC struct {
	Path            string             `json:"path"`
	PartitionValues map[string]*string `json:"partitionValues"`
	Size            int64              `json:"size"`
	DataChange      bool               `json:"dataChange"`
	Tags            map[string]string  `json:"tags,omitempty"`
}

// MarshalJSON writes an empty (never null) partitionValues map.
func (c CDC) MarshalJSON() ([]byte, error) {
	type plain CDC
	p := plain(c)
	p.PartitionValues = NonNilMap(p.PartitionValues)
	return json.Marshal(p)
}

// DomainMetadata is the domainMetadata action.
type DomainMetadata struct {
	Domain        string `json:"domain"`
	Configuration string `json:"configuration"`
	Removed       bool   `json:"removed"`
}

// CheckpointMetadata is the checkpointMetadata action of a V2 checkpoint.
type CheckpointMetadata struct {
	Version int64             `json:"version"`
	Tags    map[string]string `json:"tags,omitempty"`
}

// Sidecar is the sidecar action of a V2 checkpoint.
type Sidecar struct {
	Path             string            `json:"path"`
	SizeInBytes      int64             `json:"sizeInBytes"`
	ModificationTime int64             `json:"modificationTime"`
	Tags             map[string]string `json:"tags,omitempty"`
}

// CommitInfo is the commitInfo action (provenance). Known fields are typed;
// any other field is kept in Extra and written back verbatim.
type CommitInfo struct {
	Timestamp           int64          `json:"timestamp,omitempty"`
	InCommitTimestamp   *int64         `json:"inCommitTimestamp,omitempty"`
	Operation           string         `json:"operation,omitempty"`
	OperationParameters map[string]any `json:"operationParameters,omitempty"`
	ReadVersion         *int64         `json:"readVersion,omitempty"`
	IsolationLevel      string         `json:"isolationLevel,omitempty"`
	IsBlindAppend       *bool          `json:"isBlindAppend,omitempty"`
	OperationMetrics    map[string]any `json:"operationMetrics,omitempty"`
	EngineInfo          string         `json:"engineInfo,omitempty"`
	TxnID               string         `json:"txnId,omitempty"`
	// Extra holds every other field (userId, clientVersion, …).
	Extra map[string]any `json:"-"`
}

var commitInfoKnown = map[string]bool{
	"timestamp": true, "inCommitTimestamp": true, "operation": true,
	"operationParameters": true, "readVersion": true, "isolationLevel": true,
	"isBlindAppend": true, "operationMetrics": true, "engineInfo": true, "txnId": true,
}

// MarshalJSON merges Extra into the object; typed fields win on conflict.
func (c CommitInfo) MarshalJSON() ([]byte, error) {
	type plain CommitInfo
	b, err := json.Marshal(plain(c))
	if err != nil || len(c.Extra) == 0 {
		return b, err
	}
	m := make(map[string]any, len(c.Extra)+8)
	for k, v := range c.Extra {
		if !commitInfoKnown[k] {
			m[k] = v
		}
	}
	var typed map[string]json.RawMessage
	if err := json.Unmarshal(b, &typed); err != nil {
		return nil, err
	}
	for k, v := range typed {
		m[k] = v
	}
	return json.Marshal(m)
}

// UnmarshalJSON decodes the known fields and keeps the rest in Extra.
func (c *CommitInfo) UnmarshalJSON(b []byte) error {
	type plain CommitInfo
	var p plain
	if err := json.Unmarshal(b, &p); err != nil {
		return err
	}
	var all map[string]json.RawMessage
	if err := json.Unmarshal(b, &all); err != nil {
		return err
	}
	for k, raw := range all {
		if commitInfoKnown[k] {
			continue
		}
		if p.Extra == nil {
			p.Extra = make(map[string]any)
		}
		var v any
		if err := json.Unmarshal(raw, &v); err != nil {
			return err
		}
		p.Extra[k] = v
	}
	*c = CommitInfo(p)
	return nil
}

// Action is one line of a commit: exactly one of the pointer fields is set.
// A line whose only key is an action kind this package does not know decodes
// to an Action with no field set and Unknown naming the kind.
type Action struct {
	Protocol           *Protocol           `json:"protocol,omitempty"`
	Metadata           *Metadata           `json:"metaData,omitempty"`
	Add                *Add                `json:"add,omitempty"`
	Remove             *Remove             `json:"remove,omitempty"`
	Txn                *Txn                `json:"txn,omitempty"`
	CommitInfo         *CommitInfo         `json:"commitInfo,omitempty"`
	CDC                *CDC                `json:"cdc,omitempty"`
	DomainMetadata     *DomainMetadata     `json:"domainMetadata,omitempty"`
	CheckpointMetadata *CheckpointMetadata `json:"checkpointMetadata,omitempty"`
	Sidecar            *Sidecar            `json:"sidecar,omitempty"`
	// Unknown is the key of an unrecognised action kind (never written).
	Unknown string `json:"-"`
}

// Kind returns the JSON key of the action ("add", "metaData", …), Unknown
// for an unrecognised kind, or "" when no field is set.
func (a *Action) Kind() string {
	switch {
	case a.Protocol != nil:
		return "protocol"
	case a.Metadata != nil:
		return "metaData"
	case a.Add != nil:
		return "add"
	case a.Remove != nil:
		return "remove"
	case a.Txn != nil:
		return "txn"
	case a.CommitInfo != nil:
		return "commitInfo"
	case a.CDC != nil:
		return "cdc"
	case a.DomainMetadata != nil:
		return "domainMetadata"
	case a.CheckpointMetadata != nil:
		return "checkpointMetadata"
	case a.Sidecar != nil:
		return "sidecar"
	}
	return a.Unknown
}

// Count is the number of action kinds set: a valid action has exactly one.
func (a *Action) Count() int {
	n := 0
	for _, set := range []bool{a.Protocol != nil, a.Metadata != nil, a.Add != nil,
		a.Remove != nil, a.Txn != nil, a.CommitInfo != nil, a.CDC != nil,
		a.DomainMetadata != nil, a.CheckpointMetadata != nil, a.Sidecar != nil} {
		if set {
			n++
		}
	}
	return n
}

// ErrMalformedAction is wrapped by the action parsers for a line that is not
// a JSON object holding exactly one action.
var ErrMalformedAction = errors.New("delta: malformed action")

// ParseAction decodes one commit line. Unknown fields are ignored; unknown
// action kinds yield an Action with only Unknown set.
func ParseAction(line []byte) (Action, error) {
	var a Action
	if err := json.Unmarshal(line, &a); err != nil {
		return Action{}, fmt.Errorf("%w: %v", ErrMalformedAction, err)
	}
	switch a.Count() {
	case 1:
		if a.Add != nil && a.Add.Path == "" || a.Remove != nil && a.Remove.Path == "" {
			return Action{}, fmt.Errorf("%w: %s without a path", ErrMalformedAction, a.Kind())
		}
		if a.Txn != nil && a.Txn.AppID == "" {
			return Action{}, fmt.Errorf("%w: txn without an appId", ErrMalformedAction)
		}
		return a, nil
	case 0:
		var keys map[string]json.RawMessage
		if err := json.Unmarshal(line, &keys); err != nil || len(keys) == 0 {
			return Action{}, fmt.Errorf("%w: no action in line", ErrMalformedAction)
		}
		names := slices.Sorted(maps.Keys(keys))
		for _, k := range names {
			if isKnownKind(k) {
				// A known kind set to null.
				return Action{}, fmt.Errorf("%w: %q is null", ErrMalformedAction, k)
			}
		}
		for _, k := range names {
			if k != "" {
				a.Unknown = k
				return a, nil
			}
		}
		return Action{}, fmt.Errorf("%w: no action in line", ErrMalformedAction)
	default:
		return Action{}, fmt.Errorf("%w: more than one action in one line", ErrMalformedAction)
	}
}

func isKnownKind(k string) bool {
	switch k {
	case "protocol", "metaData", "add", "remove", "txn", "commitInfo", "cdc",
		"domainMetadata", "checkpointMetadata", "sidecar":
		return true
	}
	return false
}

// ReadActions reads newline-delimited actions (a commit file or a JSON
// checkpoint) and calls fn for each; blank lines are skipped. It stops at
// the first error from the reader, the parser or fn.
func ReadActions(r io.Reader, fn func(Action) error) error {
	br := bufio.NewReaderSize(r, 64<<10)
	lineNo := 0
	for {
		line, err := br.ReadBytes('\n')
		if len(line) > 0 {
			lineNo++
			if trimmed := bytes.TrimSpace(line); len(trimmed) > 0 {
				a, perr := ParseAction(trimmed)
				if perr != nil {
					return fmt.Errorf("line %d: %w", lineNo, perr)
				}
				if ferr := fn(a); ferr != nil {
					return ferr
				}
			}
		}
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return fmt.Errorf("delta: read actions: %w", err)
		}
	}
}

// EncodeActions writes the actions as newline-delimited JSON, one action per
// line. Every action must have exactly one field set.
func EncodeActions(w io.Writer, actions []Action) error {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	for i := range actions {
		if n := actions[i].Count(); n != 1 {
			return fmt.Errorf("%w: action %d has %d kinds set, want 1", ErrMalformedAction, i, n)
		}
		if err := enc.Encode(&actions[i]); err != nil {
			return fmt.Errorf("delta: encode action %d (%s): %w", i, actions[i].Kind(), err)
		}
	}
	_, err := w.Write(buf.Bytes())
	return err
}

// Stats are the per-file statistics stored as a JSON string in add.stats.
type Stats struct {
	NumRecords  int64          `json:"numRecords"`
	MinValues   map[string]any `json:"minValues,omitempty"`
	MaxValues   map[string]any `json:"maxValues,omitempty"`
	NullCount   map[string]any `json:"nullCount,omitempty"`
	TightBounds *bool          `json:"tightBounds,omitempty"`
}

// ParseStats decodes a stats JSON string; numbers inside the value maps are
// json.Number so that no precision is lost.
func ParseStats(s string) (*Stats, error) {
	dec := json.NewDecoder(bytes.NewReader([]byte(s)))
	dec.UseNumber()
	var st Stats
	if err := dec.Decode(&st); err != nil {
		return nil, fmt.Errorf("delta: decode stats: %w", err)
	}
	return &st, nil
}

// Encode returns the stats as the JSON string to put in add.stats.
func (s *Stats) Encode() (string, error) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(s); err != nil {
		return "", fmt.Errorf("delta: encode stats: %w", err)
	}
	return string(bytes.TrimSuffix(buf.Bytes(), []byte("\n"))), nil
}

// NonNilMap returns m, or an empty map for nil: the log and checkpoints
// write required maps as {} rather than null.
func NonNilMap[M ~map[K]V, K comparable, V any](m M) M {
	if m == nil {
		return M{}
	}
	return m
}

// NonNilSlice returns s, or an empty slice for nil.
func NonNilSlice[S ~[]E, E any](s S) S {
	if s == nil {
		return S{}
	}
	return s
}
