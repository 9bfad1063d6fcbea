package delta

import (
	"errors"
	"fmt"
	"slices"
	"strings"
)

// ErrUnsupportedProtocol is wrapped when a table needs a reader or writer
// version or a table feature this package does not implement.
var ErrUnsupportedProtocol = errors.New("delta: unsupported protocol")

// Table feature names used by this package.
const (
	FeatureAppendOnly          = "appendOnly"
	FeatureInvariants          = "invariants"
	FeatureTimestampNTZ        = "timestampNtz"
	FeatureTypeWidening        = "typeWidening"
	FeatureTypeWideningPreview = "typeWidening-preview"
	FeatureDeletionVectors     = "deletionVectors"
	FeatureColumnMapping       = "columnMapping"
	FeatureV2Checkpoint        = "v2Checkpoint"
	FeatureVacuumProtocolCheck = "vacuumProtocolCheck"
	FeatureDomainMetadata      = "domainMetadata"
)

// DefaultReaderFeatures returns the reader features the log reader accepts:
// those whose log-level semantics it implements. Deletion vectors and column
// mapping change how data files are read; data readers must check
// Snapshot.Protocol for them.
func DefaultReaderFeatures() map[string]bool {
	return map[string]bool{
		FeatureTimestampNTZ:        true,
		FeatureTypeWidening:        true,
		FeatureTypeWideningPreview: true,
		FeatureDeletionVectors:     true,
		FeatureColumnMapping:       true,
		FeatureV2Checkpoint:        true,
		FeatureVacuumProtocolCheck: true,
	}
}

// DefaultWriterFeatures returns the writer features Commit accepts on an
// existing table. Tributary only appends new files with stats and txn
// actions, so:
//   - appendOnly: honoured (a commit with a dataChange remove is refused
//     when delta.appendOnly is true);
//   - invariants: accepted, Tributary never writes columns carrying a
//     delta.invariants metadata rule (Commit refuses a schema that has one);
//   - timestampNtz, typeWidening(-preview), domainMetadata,
//     vacuumProtocolCheck, v2Checkpoint: nothing to do on append (this
//     package writes only classic checkpoints, which a v2Checkpoint table
//     does not allow, so Checkpoint refuses such tables).
func DefaultWriterFeatures() map[string]bool {
	return map[string]bool{
		FeatureAppendOnly:          true,
		FeatureInvariants:          true,
		FeatureTimestampNTZ:        true,
		FeatureTypeWidening:        true,
		FeatureTypeWideningPreview: true,
		FeatureDomainMetadata:      true,
		FeatureVacuumProtocolCheck: true,
		FeatureV2Checkpoint:        true,
	}
}

// checkRead refuses a protocol the reader cannot read.
func checkRead(p *Protocol, supported map[string]bool) error {
	if p.MinReaderVersion < 1 || p.MinReaderVersion > 3 {
		return fmt.Errorf("%w: minReaderVersion %d (supported: 1 to 3)", ErrUnsupportedProtocol, p.MinReaderVersion)
	}
	if p.MinReaderVersion == 3 {
		var missing []string
		for _, f := range p.ReaderFeatures {
			if !supported[f] {
				missing = append(missing, f)
			}
		}
		if len(missing) > 0 {
			return fmt.Errorf("%w: reader features %s", ErrUnsupportedProtocol, strings.Join(missing, ", "))
		}
	}
	return nil
}

// checkWrite refuses a protocol the writer cannot write.
func checkWrite(p *Protocol, supported map[string]bool) error {
	if p.MinWriterVersion < 1 || p.MinWriterVersion > 7 {
		return fmt.Errorf("%w: minWriterVersion %d (supported: 1 to 7)", ErrUnsupportedProtocol, p.MinWriterVersion)
	}
	// Legacy writer versions imply feature sets: 3 adds CHECK constraints,
	// 4 change data feed and generated columns, 5 column mapping, 6 identity
	// columns. Tributary implements none of them.
	if p.MinWriterVersion >= 3 && p.MinWriterVersion < 7 {
		return fmt.Errorf("%w: minWriterVersion %d implies checkConstraints/changeDataFeed/generatedColumns/columnMapping/identityColumns, not implemented", ErrUnsupportedProtocol, p.MinWriterVersion)
	}
	if p.MinWriterVersion == 7 {
		var missing []string
		for _, f := range p.WriterFeatures {
			if !supported[f] {
				missing = append(missing, f)
			}
		}
		for _, f := range p.ReaderFeatures {
			if !supported[f] && !slices.Contains(missing, f) {
				missing = append(missing, f)
			}
		}
		if len(missing) > 0 {
			return fmt.Errorf("%w: writer features %s", ErrUnsupportedProtocol, strings.Join(missing, ", "))
		}
	}
	return nil
}

// ProtocolFor returns the protocol a new table needs for its schema and
// configuration: (1, 2) unless a feature is used, then (3, 7) listing
// exactly the features used (timestampNtz for a timestamp_ntz column,
// typeWidening for delta.enableTypeWidening=true, appendOnly/invariants are
// implied by (1, 2) and listed when (3, 7) is needed).
func ProtocolFor(schemaHasTimestampNTZ bool, configuration map[string]string) Protocol {
	var readerWriter []string
	if schemaHasTimestampNTZ {
		readerWriter = append(readerWriter, FeatureTimestampNTZ)
	}
	if strings.EqualFold(configuration[PropEnableTypeWidening], "true") {
		readerWriter = append(readerWriter, FeatureTypeWidening)
	}
	if len(readerWriter) == 0 {
		return Protocol{MinReaderVersion: 1, MinWriterVersion: 2}
	}
	return Protocol{
		MinReaderVersion: 3,
		MinWriterVersion: 7,
		ReaderFeatures:   readerWriter,
		WriterFeatures:   append(slices.Clone(readerWriter), FeatureAppendOnly, FeatureInvariants),
	}
}

// CheckAppend reports whether this writer can append to the table at snap
// (nil: a table that does not exist yet, always writable), so that a writer
// refuses before it writes any data file. Column mapping is named as such:
// its data files need physical column names and field ids, which Tributary
// does not write. Otherwise the protocol must need only implemented writer
// (and reader) features, and no column may carry delta.invariants.
func (t *Table) CheckAppend(snap *Snapshot) error {
	if snap == nil {
		return nil
	}
	mode, err := snap.ColumnMappingMode()
	if err != nil {
		return err
	}
	if mode != ColumnMappingNone || snap.Protocol.HasWriterFeature(FeatureColumnMapping) && !t.writerFeatures[FeatureColumnMapping] {
		return fmt.Errorf("%w: the table uses column mapping (%s=%s, protocol (%d,%d)); Tributary cannot write column-mapped data files (physical column names and field ids) yet",
			ErrUnsupportedProtocol, PropColumnMappingMode, mode, snap.Protocol.MinReaderVersion, snap.Protocol.MinWriterVersion)
	}
	if err := checkWrite(&snap.Protocol, t.writerFeatures); err != nil {
		return fmt.Errorf("table version %d: %w (not implemented by Tributary)", snap.Version, err)
	}
	if err := checkRead(&snap.Protocol, t.readerFeatures); err != nil {
		return fmt.Errorf("table version %d: %w", snap.Version, err)
	}
	if st := snap.Schema(); st != nil {
		if name, ok := findMetadataKey(st, "", "delta.invariants"); ok {
			return fmt.Errorf("%w: column %q has delta.invariants, which this writer does not enforce", ErrUnsupportedProtocol, name)
		}
	}
	return nil
}

// WithReaderWriterFeature returns p upgraded to list feature (a
// reader-writer feature such as timestampNtz) in both feature lists: a
// legacy protocol becomes (3,7) listing the features its versions implied
// (writer version 2: appendOnly and invariants), as Delta upgrades a table
// when a schema change needs a feature.
func WithReaderWriterFeature(p Protocol, feature string) Protocol {
	out := Protocol{MinReaderVersion: 3, MinWriterVersion: 7}
	if p.MinReaderVersion == 3 {
		out.ReaderFeatures = slices.Clone(p.ReaderFeatures)
	}
	if p.MinWriterVersion == 7 {
		out.WriterFeatures = slices.Clone(p.WriterFeatures)
	} else if p.MinWriterVersion >= 2 {
		out.WriterFeatures = []string{FeatureAppendOnly, FeatureInvariants}
	}
	if !slices.Contains(out.ReaderFeatures, feature) {
		out.ReaderFeatures = append(out.ReaderFeatures, feature)
	}
	if !slices.Contains(out.WriterFeatures, feature) {
		out.WriterFeatures = append(out.WriterFeatures, feature)
	}
	if out.ReaderFeatures == nil {
		out.ReaderFeatures = []string{}
	}
	return out
}
