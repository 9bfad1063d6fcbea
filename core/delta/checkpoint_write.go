package delta

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"maps"
	"slices"

	"github.com/parquet-go/parquet-go"

	"github.com/tributary-io/tributary/core/delta/action"
)

// Checkpoint rows, in the classic (V1) checkpoint schema Spark writes:
// one optional struct column per action kind, maps as MAP<string,string>
// and lists as LIST<string>.
type ckptRow struct {
	Txn            *ckptTxn    `parquet:"txn,optional"`
	Add            *ckptAdd    `parquet:"add,optional"`
	Remove         *ckptRemove `parquet:"remove,optional"`
	MetaData       *ckptMeta   `parquet:"metaData,optional"`
	Protocol       *ckptProto  `parquet:"protocol,optional"`
	DomainMetadata *ckptDomain `parquet:"domainMetadata,optional"`
}

type ckptTxn struct {
	AppID       *string `parquet:"appId,optional"`
	Version     *int64  `parquet:"version,optional"`
	LastUpdated *int64  `parquet:"lastUpdated,optional"`
}

type ckptDV struct {
	StorageType    *string `parquet:"storageType,optional"`
	PathOrInlineDv *string `parquet:"pathOrInlineDv,optional"`
	Offset         *int32  `parquet:"offset,optional"`
	SizeInBytes    *int32  `parquet:"sizeInBytes,optional"`
	Cardinality    *int64  `parquet:"cardinality,optional"`
	MaxRowIndex    *int64  `parquet:"maxRowIndex,optional"`
}

type ckptAdd struct {
	Path                    *string            `parquet:"path,optional"`
	PartitionValues         map[string]*string `parquet:"partitionValues,optional"`
	Size                    *int64             `parquet:"size,optional"`
	ModificationTime        *int64             `parquet:"modificationTime,optional"`
	DataChange              *bool              `parquet:"dataChange,optional"`
	Tags                    map[string]string  `parquet:"tags,optional"`
	DeletionVector          *ckptDV            `parquet:"deletionVector,optional"`
	BaseRowID               *int64             `parquet:"baseRowId,optional"`
	DefaultRowCommitVersion *int64             `parquet:"defaultRowCommitVersion,optional"`
	Stats                   *string            `parquet:"stats,optional"`
}

type ckptRemove struct {
	Path                 *string            `parquet:"path,optional"`
	DeletionTimestamp    *int64             `parquet:"deletionTimestamp,optional"`
	DataChange           *bool              `parquet:"dataChange,optional"`
	ExtendedFileMetadata *bool              `parquet:"extendedFileMetadata,optional"`
	PartitionValues      map[string]*string `parquet:"partitionValues,optional"`
	Size                 *int64             `parquet:"size,optional"`
	DeletionVector       *ckptDV            `parquet:"deletionVector,optional"`
}

type ckptFormat struct {
	Provider *string           `parquet:"provider,optional"`
	Options  map[string]string `parquet:"options,optional"`
}

type ckptMeta struct {
	ID               *string           `parquet:"id,optional"`
	Name             *string           `parquet:"name,optional"`
	Description      *string           `parquet:"description,optional"`
	Format           *ckptFormat       `parquet:"format,optional"`
	SchemaString     *string           `parquet:"schemaString,optional"`
	PartitionColumns []string          `parquet:"partitionColumns,optional,list"`
	Configuration    map[string]string `parquet:"configuration,optional"`
	CreatedTime      *int64            `parquet:"createdTime,optional"`
}

type ckptProto struct {
	MinReaderVersion *int32   `parquet:"minReaderVersion,optional"`
	MinWriterVersion *int32   `parquet:"minWriterVersion,optional"`
	ReaderFeatures   []string `parquet:"readerFeatures,optional,list"`
	WriterFeatures   []string `parquet:"writerFeatures,optional,list"`
}

type ckptDomain struct {
	Domain        *string `parquet:"domain,optional"`
	Configuration *string `parquet:"configuration,optional"`
	Removed       *bool   `parquet:"removed,optional"`
}

func ptr[T any](v T) *T { return &v }

func optStr(s string) *string {
	if s == "" {
		return nil
	}
	return &s
}

func ckptDVOf(d *DeletionVector) *ckptDV {
	if d == nil {
		return nil
	}
	return &ckptDV{StorageType: ptr(d.StorageType), PathOrInlineDv: ptr(d.PathOrInlineDv), Offset: d.Offset,
		SizeInBytes: ptr(d.SizeInBytes), Cardinality: ptr(d.Cardinality), MaxRowIndex: d.MaxRowIndex}
}

// checkpointRowGroupRows bounds a row group (and the rows buffered before a
// flush) so that writing a checkpoint needs memory for one row group, not a
// second copy of the table state.
const checkpointRowGroupRows = 8192

// Checkpoint writes a classic single-file checkpoint of snap
// (_delta_log/<version>.checkpoint.parquet) and then _last_checkpoint. The
// Parquet file is streamed to the store in row groups. Tombstones older than
// delta.deletedFileRetentionDuration are dropped. Tables using the
// v2Checkpoint feature are refused (they do not allow classic checkpoints).
func (t *Table) Checkpoint(ctx context.Context, snap *Snapshot) error {
	if snap == nil || snap.Version < 0 {
		return errors.New("delta: checkpoint needs a loaded snapshot")
	}
	if snap.Protocol.HasWriterFeature(FeatureV2Checkpoint) {
		return fmt.Errorf("%w: table uses %s; only classic checkpoints are written", ErrUnsupportedProtocol, FeatureV2Checkpoint)
	}
	retention, err := snap.DeletedFileRetentionDuration()
	if err != nil {
		return err
	}
	minDeletion := t.now().Add(-retention).UnixMilli()

	pr, pw := io.Pipe()
	var actions, adds int64
	go func() {
		n, a, err := writeCheckpoint(pw, snap, minDeletion)
		actions, adds = n, a
		pw.CloseWithError(err)
	}()
	key := CheckpointKey(snap.Version)
	if err := t.store.Put(ctx, key, pr); err != nil {
		pr.CloseWithError(err)
		return fmt.Errorf("delta: write checkpoint %s: %w", key, err)
	}
	info, err := t.store.Head(ctx, key)
	if err != nil {
		return fmt.Errorf("delta: checkpoint %s: %w", key, err)
	}
	lc, err := json.Marshal(LastCheckpoint{Version: snap.Version, Size: actions, SizeInBytes: info.Size, NumOfAddFiles: adds})
	if err != nil {
		return err
	}
	if err := t.store.Put(ctx, LastCheckpointKey, bytes.NewReader(lc)); err != nil {
		return fmt.Errorf("delta: write %s: %w", LastCheckpointKey, err)
	}
	snap.lastCheckpoint = max(snap.lastCheckpoint, snap.Version)
	return nil
}

// checkpointBoundary returns the newest multiple of the table's
// delta.checkpointInterval at or below version (0 when none).
func (s *Snapshot) checkpointBoundary(version int64) (int64, error) {
	interval, err := s.CheckpointInterval()
	if err != nil {
		return 0, err
	}
	if version <= 0 {
		return 0, nil
	}
	return version - version%interval, nil
}

// CheckpointDue reports, without I/O, whether a checkpoint may be due once
// the table reaches version: a multiple of delta.checkpointInterval was
// passed since the newest checkpoint this snapshot knows of. The multiple
// itself need not be a version this writer committed (another writer may
// have taken it, or committed without checkpointing).
func (s *Snapshot) CheckpointDue(version int64) bool {
	b, err := s.checkpointBoundary(version)
	return err == nil && b > 0 && b > s.lastCheckpoint
}

// MaybeCheckpoint writes a checkpoint of the table when one is due after
// version was committed (see CheckpointDue): it checks _last_checkpoint
// for a checkpoint another writer already wrote past the interval
// boundary, and writes a classic checkpoint of snap otherwise (snap is
// first brought up to date when it is older than version or than that
// checkpoint; a snapshot at version is checkpointed without listing the
// log). Tables
// with the v2Checkpoint feature are left alone (only V2 checkpoints are
// allowed there). It reports whether it wrote one.
func (t *Table) MaybeCheckpoint(ctx context.Context, snap *Snapshot, version int64) (bool, error) {
	if snap == nil || !snap.CheckpointDue(version) {
		return false, nil
	}
	lc, ok := t.readLastCheckpoint(ctx)
	// A snapshot at version (the caller's own commit) is checkpointed as
	// it is: no listing. It is brought up to date when it is behind
	// version, or when another writer already checkpointed past it.
	if snap.Version < version || ok && lc.Version > snap.Version {
		if err := snap.Update(ctx); err != nil {
			return false, err
		}
	}
	if snap.Protocol.HasWriterFeature(FeatureV2Checkpoint) {
		return false, nil
	}
	boundary, err := snap.checkpointBoundary(max(version, snap.Version))
	if err != nil {
		return false, err
	}
	if ok && lc.Version <= snap.Version {
		snap.lastCheckpoint = max(snap.lastCheckpoint, lc.Version)
	}
	if boundary <= snap.lastCheckpoint {
		return false, nil
	}
	if err := t.Checkpoint(ctx, snap); err != nil {
		return false, err
	}
	return true, nil
}

func writeCheckpoint(w io.Writer, snap *Snapshot, minDeletion int64) (actions, adds int64, err error) {
	pw := parquet.NewGenericWriter[ckptRow](w, parquet.Compression(&parquet.Snappy))
	buf := make([]ckptRow, 0, 1024)
	inGroup := 0
	flush := func() error {
		if len(buf) > 0 {
			if _, err := pw.Write(buf); err != nil {
				return err
			}
			actions += int64(len(buf))
			inGroup += len(buf)
			buf = buf[:0]
		}
		if inGroup >= checkpointRowGroupRows {
			inGroup = 0
			return pw.Flush()
		}
		return nil
	}
	emit := func(r ckptRow) error {
		buf = append(buf, r)
		if len(buf) == cap(buf) {
			return flush()
		}
		return nil
	}
	p := snap.Protocol
	if err := emit(ckptRow{Protocol: &ckptProto{MinReaderVersion: ptr(int32(p.MinReaderVersion)), MinWriterVersion: ptr(int32(p.MinWriterVersion)),
		ReaderFeatures: p.ReaderFeatures, WriterFeatures: p.WriterFeatures}}); err != nil {
		return 0, 0, err
	}
	m := snap.Metadata
	provider := m.Format.Provider
	if provider == "" {
		provider = "parquet"
	}
	if err := emit(ckptRow{MetaData: &ckptMeta{ID: ptr(m.ID), Name: optStr(m.Name), Description: optStr(m.Description),
		Format:       &ckptFormat{Provider: ptr(provider), Options: action.NonNilMap(m.Format.Options)},
		SchemaString: ptr(m.SchemaString), PartitionColumns: action.NonNilSlice(m.PartitionColumns),
		Configuration: action.NonNilMap(m.Configuration), CreatedTime: m.CreatedTime}}); err != nil {
		return 0, 0, err
	}
	for _, app := range slices.Sorted(maps.Keys(snap.txns)) {
		tx := snap.txns[app]
		if err := emit(ckptRow{Txn: &ckptTxn{AppID: ptr(tx.AppID), Version: ptr(tx.Version), LastUpdated: tx.LastUpdated}}); err != nil {
			return 0, 0, err
		}
	}
	for _, d := range slices.Sorted(maps.Keys(snap.domains)) {
		dm := snap.domains[d]
		if err := emit(ckptRow{DomainMetadata: &ckptDomain{Domain: ptr(dm.Domain), Configuration: ptr(dm.Configuration), Removed: ptr(false)}}); err != nil {
			return 0, 0, err
		}
	}
	for a := range snap.Files() {
		adds++
		if err := emit(ckptRow{Add: &ckptAdd{Path: ptr(a.Path), PartitionValues: action.NonNilMap(a.PartitionValues), Size: ptr(a.Size),
			ModificationTime: ptr(a.ModificationTime), DataChange: ptr(false), Tags: a.Tags, DeletionVector: ckptDVOf(a.DeletionVector),
			BaseRowID: a.BaseRowID, DefaultRowCommitVersion: a.DefaultRowCommitVersion, Stats: optStr(a.Stats)}}); err != nil {
			return 0, 0, err
		}
	}
	for r := range snap.Tombstones() {
		if r.DeletionTimestamp != 0 && r.DeletionTimestamp < minDeletion {
			continue
		}
		if err := emit(ckptRow{Remove: &ckptRemove{Path: ptr(r.Path), DeletionTimestamp: ptr(r.DeletionTimestamp), DataChange: ptr(false),
			ExtendedFileMetadata: ptr(r.ExtendedFileMetadata), PartitionValues: r.PartitionValues, Size: ptr(r.Size),
			DeletionVector: ckptDVOf(r.DeletionVector)}}); err != nil {
			return 0, 0, err
		}
	}
	if err := flush(); err != nil {
		return 0, 0, err
	}
	if err := pw.Close(); err != nil {
		return 0, 0, err
	}
	return actions, adds, nil
}
