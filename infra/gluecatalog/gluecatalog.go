// Package gluecatalog registers a Delta table in the AWS Glue Data Catalog
// the way Athena reads Delta tables natively: an EXTERNAL_TABLE with the
// parameter table_type=DELTA and the table's directory as its
// StorageDescriptor location (Athena reads the schema from the Delta log;
// the columns are also written, from the Delta schema, for engines that read
// them from the catalog). Sync creates the catalog table with the Delta
// table and updates it when the schema or location changes, as oxbow does.
package gluecatalog

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/glue"
	"github.com/aws/aws-sdk-go-v2/service/glue/types"
)

// API is the part of the Glue client Sync calls (glue:GetTable,
// glue:CreateTable, glue:UpdateTable).
type API interface {
	GetTable(ctx context.Context, in *glue.GetTableInput, opts ...func(*glue.Options)) (*glue.GetTableOutput, error)
	CreateTable(ctx context.Context, in *glue.CreateTableInput, opts ...func(*glue.Options)) (*glue.CreateTableOutput, error)
	UpdateTable(ctx context.Context, in *glue.UpdateTableInput, opts ...func(*glue.Options)) (*glue.UpdateTableOutput, error)
}

// ErrSchema marks a Delta schema string that cannot be mapped to catalog
// columns.
var ErrSchema = errors.New("gluecatalog: unsupported Delta schema")

// Catalog registers tables in one Glue database.
type Catalog struct {
	// Client calls Glue.
	Client API
	// Database is the Glue database (it must exist).
	Database string
}

// Action is what Sync did.
type Action string

// Sync's outcomes.
const (
	Created   Action = "created"
	Updated   Action = "updated"
	Unchanged Action = "unchanged"
)

// Sync makes the catalog table name describe the Delta table at location
// (s3://bucket/prefix) with the Delta schema string schema (the metaData
// action's schemaString) and its partition columns (metaData
// partitionColumns, in order): created when missing, updated when its
// location, type parameters, columns or partition keys differ, left alone
// otherwise. Partition columns become the catalog's partition keys and are
// left out of its columns, as the Hive metastore lays out a partitioned
// table.
func (c *Catalog) Sync(ctx context.Context, name, location, schema string, partitionColumns []string) (Action, error) {
	all, err := Columns(schema)
	if err != nil {
		return "", fmt.Errorf("table %s.%s: %w", c.Database, name, err)
	}
	cols, keys, err := SplitPartitions(all, partitionColumns)
	if err != nil {
		return "", fmt.Errorf("table %s.%s: %w", c.Database, name, err)
	}
	want := TableInput(name, location, cols)
	want.PartitionKeys = keys
	got, err := c.Client.GetTable(ctx, &glue.GetTableInput{DatabaseName: aws.String(c.Database), Name: aws.String(name)})
	var missing *types.EntityNotFoundException
	switch {
	case errors.As(err, &missing):
		if _, err := c.Client.CreateTable(ctx, &glue.CreateTableInput{DatabaseName: aws.String(c.Database), TableInput: want}); err != nil {
			return "", fmt.Errorf("glue CreateTable %s.%s: %w", c.Database, name, err)
		}
		return Created, nil
	case err != nil:
		return "", fmt.Errorf("glue GetTable %s.%s: %w", c.Database, name, err)
	}
	if same(got.Table, want) {
		return Unchanged, nil
	}
	// Keep parameters others set on the table; ours win.
	params := map[string]string{}
	for k, v := range got.Table.Parameters {
		params[k] = v
	}
	for k, v := range want.Parameters {
		params[k] = v
	}
	want.Parameters = params
	if _, err := c.Client.UpdateTable(ctx, &glue.UpdateTableInput{DatabaseName: aws.String(c.Database), TableInput: want}); err != nil {
		return "", fmt.Errorf("glue UpdateTable %s.%s: %w", c.Database, name, err)
	}
	return Updated, nil
}

// TableInput is the catalog entry of a Delta table: EXTERNAL_TABLE,
// table_type=DELTA (Athena), spark.sql.sources.provider=delta (Spark) and
// the table's directory as location.
func TableInput(name, location string, cols []types.Column) *types.TableInput {
	return &types.TableInput{
		Name:      aws.String(name),
		TableType: aws.String("EXTERNAL_TABLE"),
		Parameters: map[string]string{
			"table_type":                 "DELTA",
			"spark.sql.sources.provider": "delta",
			"EXTERNAL":                   "TRUE",
		},
		StorageDescriptor: &types.StorageDescriptor{
			Location: aws.String(strings.TrimSuffix(location, "/") + "/"),
			Columns:  cols,
		},
	}
}

// same reports whether the catalog table already matches want.
func same(got *types.Table, want *types.TableInput) bool {
	if got == nil || got.StorageDescriptor == nil || aws.ToString(got.TableType) != aws.ToString(want.TableType) ||
		aws.ToString(got.StorageDescriptor.Location) != aws.ToString(want.StorageDescriptor.Location) {
		return false
	}
	for k, v := range want.Parameters {
		if got.Parameters[k] != v {
			return false
		}
	}
	return slices.EqualFunc(got.StorageDescriptor.Columns, want.StorageDescriptor.Columns, sameColumn) &&
		slices.EqualFunc(got.PartitionKeys, want.PartitionKeys, sameColumn)
}

func sameColumn(a, b types.Column) bool {
	return aws.ToString(a.Name) == aws.ToString(b.Name) && aws.ToString(a.Type) == aws.ToString(b.Type)
}

// SplitPartitions moves the partition columns (by name, case-insensitively
// as Delta matches them, in partitionColumns order) out of cols and returns
// the remaining columns and the partition keys. A partition column missing
// from the schema wraps ErrSchema.
func SplitPartitions(cols []types.Column, partitionColumns []string) (rest, keys []types.Column, err error) {
	rest = make([]types.Column, 0, len(cols))
	keys = make([]types.Column, 0, len(partitionColumns))
	for _, p := range partitionColumns {
		i := slices.IndexFunc(cols, func(c types.Column) bool { return strings.EqualFold(aws.ToString(c.Name), p) })
		if i < 0 {
			return nil, nil, fmt.Errorf("%w: partition column %q is not in the schema", ErrSchema, p)
		}
		keys = append(keys, cols[i])
	}
	for _, c := range cols {
		if !slices.ContainsFunc(keys, func(k types.Column) bool { return aws.ToString(k.Name) == aws.ToString(c.Name) }) {
			rest = append(rest, c)
		}
	}
	return rest, keys, nil
}

// deltaField is a field of a Delta schema (PROTOCOL.md "Schema Serialization Format").
type deltaField struct {
	Name string          `json:"name"`
	Type json.RawMessage `json:"type"`
}

type deltaComplex struct {
	Type              string          `json:"type"`
	Fields            []deltaField    `json:"fields"`
	ElementType       json.RawMessage `json:"elementType"`
	KeyType           json.RawMessage `json:"keyType"`
	ValueType         json.RawMessage `json:"valueType"`
	ContainsNull      *bool           `json:"containsNull"`
	ValueContainsNull *bool           `json:"valueContainsNull"`
}

// Columns maps a Delta schema string (a struct type) to catalog columns
// with Hive type names (long → bigint, struct<…>, array<…>, map<…,…>).
func Columns(schema string) ([]types.Column, error) {
	var top deltaComplex
	if err := json.Unmarshal([]byte(schema), &top); err != nil {
		return nil, fmt.Errorf("%w: %w", ErrSchema, err)
	}
	if top.Type != "struct" {
		return nil, fmt.Errorf("%w: top-level type %q, want struct", ErrSchema, top.Type)
	}
	cols := make([]types.Column, 0, len(top.Fields))
	for _, f := range top.Fields {
		t, err := hiveType(f.Type, 0)
		if err != nil {
			return nil, fmt.Errorf("column %q: %w", f.Name, err)
		}
		cols = append(cols, types.Column{Name: aws.String(f.Name), Type: aws.String(t)})
	}
	return cols, nil
}

// maxDepth bounds nesting (a hostile schema cannot exhaust the stack).
const maxDepth = 64

var primitives = map[string]string{
	"string": "string", "long": "bigint", "integer": "int", "short": "smallint", "byte": "tinyint",
	"float": "float", "double": "double", "boolean": "boolean", "binary": "binary", "date": "date",
	"timestamp": "timestamp", "timestamp_ntz": "timestamp",
}

func hiveType(raw json.RawMessage, depth int) (string, error) {
	if depth > maxDepth {
		return "", fmt.Errorf("%w: nested deeper than %d", ErrSchema, maxDepth)
	}
	var name string
	if err := json.Unmarshal(raw, &name); err == nil {
		if h, ok := primitives[name]; ok {
			return h, nil
		}
		var p, s int
		if n, err := fmt.Sscanf(name, "decimal(%d,%d)", &p, &s); err == nil && n == 2 && fmt.Sprintf("decimal(%d,%d)", p, s) == name {
			return name, nil
		}
		return "", fmt.Errorf("%w: type %q", ErrSchema, name)
	}
	var c deltaComplex
	if err := json.Unmarshal(raw, &c); err != nil {
		return "", fmt.Errorf("%w: type %s: %w", ErrSchema, raw, err)
	}
	switch c.Type {
	case "struct":
		parts := make([]string, 0, len(c.Fields))
		for _, f := range c.Fields {
			t, err := hiveType(f.Type, depth+1)
			if err != nil {
				return "", err
			}
			parts = append(parts, f.Name+":"+t)
		}
		return "struct<" + strings.Join(parts, ",") + ">", nil
	case "array":
		t, err := hiveType(c.ElementType, depth+1)
		if err != nil {
			return "", err
		}
		return "array<" + t + ">", nil
	case "map":
		k, err := hiveType(c.KeyType, depth+1)
		if err != nil {
			return "", err
		}
		v, err := hiveType(c.ValueType, depth+1)
		if err != nil {
			return "", err
		}
		return "map<" + k + "," + v + ">", nil
	}
	return "", fmt.Errorf("%w: type %s", ErrSchema, raw)
}
