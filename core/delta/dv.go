package delta

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/tributary-io/tributary/core/delta/dv"
	"github.com/tributary-io/tributary/core/objstore"
)

// ErrInvalidDeletionVector is wrapped when a deletion vector cannot be
// decoded: bad Z85, a wrong magic number, a truncated or inconsistent
// bitmap, a checksum mismatch, or a cardinality other than the descriptor's.
var ErrInvalidDeletionVector = dv.ErrInvalid

// Deletion vector storage types (DeletionVector.StorageType).
const (
	DVStorageInline   = "i" // the bitmap is Z85-encoded in pathOrInlineDv
	DVStorageRelative = "u" // <random prefix><Z85 UUID>, a file under the table root
	DVStorageAbsolute = "p" // an absolute path, like add.path
)

// RowSet is a set of row indexes in a data file, in ascending order: the
// rows a deletion vector removes.
type RowSet = dv.RowSet

// DVFileKey returns the store key of the file holding an on-disk deletion
// vector relative to the table root (storage type "u":
// <prefix>/deletion_vector_<uuid>.bin) or, for storage type "p", the key
// that the absolute path names under root (the table's location URI, e.g.
// "s3://bucket/table" or "file:///data/table"; "" when unknown). Inline
// vectors have no file.
func DVFileKey(d *DeletionVector, root string) (string, error) {
	switch d.StorageType {
	case DVStorageRelative:
		return dv.UUIDFileName(d.PathOrInlineDv)
	case DVStorageAbsolute:
		return absoluteKey(d.PathOrInlineDv, root)
	case DVStorageInline:
		return "", fmt.Errorf("%w: an inline deletion vector has no file", ErrInvalidDeletionVector)
	}
	return "", fmt.Errorf("%w: unknown storage type %q", ErrInvalidDeletionVector, d.StorageType)
}

// absoluteKey maps an absolute file URI under root to a key of the table's
// store.
func absoluteKey(path, root string) (string, error) {
	if root != "" {
		r := strings.TrimSuffix(canonicalPath(root), "/") + "/"
		if rest, ok := strings.CutPrefix(canonicalPath(path), r); ok {
			return ObjectKey(rest)
		}
	}
	return "", fmt.Errorf("%w: %q is not under the table location %q", ErrAbsolutePath, path, root)
}

// FileKey returns the store key of a data file named in an add, remove or
// cdc action: a relative path, or an absolute one under the table's
// location (WithLocation).
func (t *Table) FileKey(path string) (string, error) {
	key, err := ObjectKey(path)
	if errors.Is(err, ErrAbsolutePath) {
		return absoluteKey(path, t.rootURI)
	}
	return key, err
}

// LoadDeletionVector reads the rows a deletion vector removes: decoded
// inline, or read from its file in the table's store (the file's version
// byte, the vector's size and CRC-32 checksum are checked). The decoded
// count must equal the descriptor's cardinality.
func (t *Table) LoadDeletionVector(ctx context.Context, d *DeletionVector) (RowSet, error) {
	if d == nil {
		return nil, nil
	}
	if d.Cardinality < 0 || d.SizeInBytes < 0 || d.SizeInBytes > dv.MaxBytes {
		return nil, fmt.Errorf("%w: cardinality %d, sizeInBytes %d", ErrInvalidDeletionVector, d.Cardinality, d.SizeInBytes)
	}
	var data []byte
	var where string
	switch d.StorageType {
	case DVStorageInline:
		b, err := dv.Z85Decode(d.PathOrInlineDv)
		if err != nil {
			return nil, err
		}
		if int(d.SizeInBytes) > len(b) {
			return nil, fmt.Errorf("%w: inline vector decodes to %d bytes, sizeInBytes is %d", ErrInvalidDeletionVector, len(b), d.SizeInBytes)
		}
		data, where = b[:d.SizeInBytes], "inline"
	default:
		key, err := DVFileKey(d, t.rootURI)
		if err != nil {
			return nil, err
		}
		offset := int64(0)
		if d.Offset != nil {
			offset = int64(*d.Offset)
		}
		rc, err := t.store.Get(ctx, key)
		if err != nil {
			if errors.Is(err, objstore.ErrNotFound) {
				return nil, fmt.Errorf("delta: deletion vector file %s: %w", key, err)
			}
			return nil, fmt.Errorf("delta: read deletion vector file %s: %w", key, err)
		}
		data, err = dv.ReadStored(rc, offset, int64(d.SizeInBytes))
		rc.Close()
		if err != nil {
			return nil, fmt.Errorf("deletion vector file %s: %w", key, err)
		}
		where = key
	}
	rows, err := dv.Decode(data, uint64(d.Cardinality))
	if err != nil {
		return nil, fmt.Errorf("deletion vector %s: %w", where, err)
	}
	if int64(len(rows)) != d.Cardinality {
		return nil, fmt.Errorf("deletion vector %s: %w: holds %d rows, cardinality says %d", where, ErrInvalidDeletionVector, len(rows), d.Cardinality)
	}
	return rows, nil
}
