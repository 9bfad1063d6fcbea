package gluecatalog

import (
	"errors"
	"strings"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/glue"
	"github.com/aws/aws-sdk-go-v2/service/glue/types"
	"github.com/google/uuid"

	"github.com/tributary-io/tributary/infra/awstest"
)

func TestMain(m *testing.M) { awstest.Main(m) }

const (
	schemaV1 = `{"type":"struct","fields":[{"name":"id","type":"long","nullable":true,"metadata":{}},{"name":"msg","type":"string","nullable":true,"metadata":{}}]}`
	schemaV2 = `{"type":"struct","fields":[{"name":"id","type":"long","nullable":true,"metadata":{}},{"name":"msg","type":"string","nullable":true,"metadata":{}},{"name":"at","type":"timestamp","nullable":true,"metadata":{}}]}`
)

func TestColumns(t *testing.T) {
	tests := []struct {
		name, schema string
		want         string // "name type;..." or an error substring after "!"
	}{
		{"primitives", `{"type":"struct","fields":[{"name":"a","type":"long"},{"name":"b","type":"integer"},{"name":"c","type":"short"},{"name":"d","type":"byte"},{"name":"e","type":"boolean"},{"name":"f","type":"binary"},{"name":"g","type":"date"},{"name":"h","type":"timestamp_ntz"},{"name":"i","type":"decimal(10,2)"},{"name":"j","type":"double"},{"name":"k","type":"float"}]}`,
			"a bigint;b int;c smallint;d tinyint;e boolean;f binary;g date;h timestamp;i decimal(10,2);j double;k float"},
		{"nested", `{"type":"struct","fields":[{"name":"s","type":{"type":"struct","fields":[{"name":"x","type":"string"},{"name":"y","type":{"type":"array","elementType":"long","containsNull":true}}]}},{"name":"m","type":{"type":"map","keyType":"string","valueType":{"type":"array","elementType":"date"}}}]}`,
			"s struct<x:string,y:array<bigint>>;m map<string,array<date>>"},
		{"unknown type", `{"type":"struct","fields":[{"name":"v","type":"variant"}]}`, `!column "v"`},
		{"bad decimal", `{"type":"struct","fields":[{"name":"v","type":"decimal(10,2"}]}`, "!decimal"},
		{"not a struct", `{"type":"array","elementType":"long"}`, "!top-level"},
		{"not json", `{`, "!unsupported Delta schema"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			cols, err := Columns(tc.schema)
			if strings.HasPrefix(tc.want, "!") {
				if !errors.Is(err, ErrSchema) || !strings.Contains(err.Error(), tc.want[1:]) {
					t.Fatalf("Columns: %v, want %v naming %s", err, ErrSchema, tc.want[1:])
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if got := render(cols); got != tc.want {
				t.Fatalf("columns\n got %s\nwant %s", got, tc.want)
			}
		})
	}
}

func FuzzColumns(f *testing.F) {
	for _, s := range []string{schemaV1, schemaV2, `{"type":"struct","fields":[{"name":"m","type":{"type":"map","keyType":"string","valueType":"long"}}]}`, `{`, `"x"`} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		cols, err := Columns(s)
		if err != nil {
			if !errors.Is(err, ErrSchema) {
				t.Fatalf("error %v is not ErrSchema", err)
			}
			return
		}
		for _, c := range cols {
			if aws.ToString(c.Type) == "" {
				t.Fatalf("column %q without a type", aws.ToString(c.Name))
			}
		}
	})
}

func render(cols []types.Column) string {
	var parts []string
	for _, c := range cols {
		parts = append(parts, aws.ToString(c.Name)+" "+aws.ToString(c.Type))
	}
	return strings.Join(parts, ";")
}

// TestSyncOnEmulator creates, keeps and updates a catalog table on moto's Glue.
func TestSyncOnEmulator(t *testing.T) {
	ctx := t.Context()
	client := glue.NewFromConfig(awstest.Config(t, awstest.Endpoint(t)))
	db := "tributary_" + strings.ReplaceAll(uuid.NewString(), "-", "")[:8]
	if _, err := client.CreateDatabase(ctx, &glue.CreateDatabaseInput{DatabaseInput: &types.DatabaseInput{Name: aws.String(db)}}); err != nil {
		t.Fatal(err)
	}
	c := &Catalog{Client: client, Database: db}
	const loc = "s3://lake/tables/events"
	steps := []struct {
		schema, location string
		parts            []string
		want             Action
		cols, keys       string
	}{
		{schemaV1, loc, nil, Created, "id bigint;msg string", ""},
		{schemaV1, loc, nil, Unchanged, "id bigint;msg string", ""},
		{schemaV2, loc, nil, Updated, "id bigint;msg string;at timestamp", ""},
		{schemaV2, loc + "/", nil, Unchanged, "id bigint;msg string;at timestamp", ""},
		{schemaV2, "s3://lake/tables/moved", nil, Updated, "id bigint;msg string;at timestamp", ""},
		// Partition columns become partition keys, in partitionColumns order.
		{schemaV2, "s3://lake/tables/moved", []string{"MSG", "id"}, Updated, "at timestamp", "msg string;id bigint"},
		{schemaV2, "s3://lake/tables/moved", []string{"msg", "id"}, Unchanged, "at timestamp", "msg string;id bigint"},
		{schemaV2, "s3://lake/tables/moved", []string{"id"}, Updated, "msg string;at timestamp", "id bigint"},
	}
	for i, st := range steps {
		if i == 2 {
			// A parameter someone else set survives our updates.
			got, err := client.GetTable(ctx, &glue.GetTableInput{DatabaseName: aws.String(db), Name: aws.String("events")})
			if err != nil {
				t.Fatal(err)
			}
			in := TableInput("events", loc, got.Table.StorageDescriptor.Columns)
			in.Parameters["owner_team"] = "lake"
			if _, err := client.UpdateTable(ctx, &glue.UpdateTableInput{DatabaseName: aws.String(db), TableInput: in}); err != nil {
				t.Fatal(err)
			}
		}
		act, err := c.Sync(ctx, "events", st.location, st.schema, st.parts)
		if err != nil {
			t.Fatalf("step %d: %v", i, err)
		}
		if act != st.want {
			t.Fatalf("step %d: %s, want %s", i, act, st.want)
		}
		got, err := client.GetTable(ctx, &glue.GetTableInput{DatabaseName: aws.String(db), Name: aws.String("events")})
		if err != nil {
			t.Fatal(err)
		}
		tb := got.Table
		if aws.ToString(tb.TableType) != "EXTERNAL_TABLE" || tb.Parameters["table_type"] != "DELTA" || tb.Parameters["spark.sql.sources.provider"] != "delta" {
			t.Fatalf("step %d: table type %q parameters %v", i, aws.ToString(tb.TableType), tb.Parameters)
		}
		if want := strings.TrimSuffix(st.location, "/") + "/"; aws.ToString(tb.StorageDescriptor.Location) != want {
			t.Fatalf("step %d: location %q, want %q", i, aws.ToString(tb.StorageDescriptor.Location), want)
		}
		if got := render(tb.StorageDescriptor.Columns); got != st.cols {
			t.Fatalf("step %d: columns %s, want %s", i, got, st.cols)
		}
		if got := render(tb.PartitionKeys); got != st.keys {
			t.Fatalf("step %d: partition keys %s, want %s", i, got, st.keys)
		}
		if i >= 2 && tb.Parameters["owner_team"] != "lake" {
			t.Fatalf("step %d: parameters %v lost owner_team", i, tb.Parameters)
		}
	}
	// A partition column the schema lacks is a schema error naming it.
	if _, err := c.Sync(ctx, "events", loc, schemaV1, []string{"day"}); !errors.Is(err, ErrSchema) || !strings.Contains(err.Error(), `"day"`) {
		t.Fatalf("sync with an unknown partition column: %v", err)
	}
	// A missing database is an error naming it.
	if _, err := (&Catalog{Client: client, Database: db + "_missing"}).Sync(ctx, "events", loc, schemaV1, nil); err == nil || !strings.Contains(err.Error(), db+"_missing") {
		t.Fatalf("sync into a missing database: %v", err)
	}
}
