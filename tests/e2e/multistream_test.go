package e2e

import (
	"encoding/json"
	"slices"
	"strings"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/glue"
	gluetypes "github.com/aws/aws-sdk-go-v2/service/glue/types"

	"github.com/tributary-io/tributary/core/state"
	"github.com/tributary-io/tributary/infra/awstest"
	"github.com/tributary-io/tributary/infra/gluecatalog"
	"github.com/tributary-io/tributary/infra/lambdafn"
)

// twoStreamConfig is the TRIBUTARY_CONFIG of a two-stream deployment: the
// prefixes landing/a/ and landing/b/ of the fixture's bucket into the tables
// tables/a and tables/b (the stack's StreamsConfig parameter).
func (f *fixture) twoStreamConfig() string {
	f.t.Helper()
	b := "s3://" + f.bucket + "/"
	var list []any
	for _, id := range []string{"a", "b"} {
		list = append(list, map[string]any{
			"id":                 id,
			"source":             b + sourcePrefix + id + "/",
			"table":              b + "tables/" + id,
			"checkpointLocation": b + "tables/" + id + "/_tributary/checkpoint/",
			"schemaLocation":     b + "tables/" + id + "/_tributary/checkpoint/",
			"options": map[string]any{
				"cloudFiles.format":           "json",
				"cloudFiles.useNotifications": true,
				"cloudFiles.inferColumnTypes": true,
			},
		})
	}
	out, err := json.Marshal(map[string]any{"streams": list})
	if err != nil {
		f.t.Fatal(err)
	}
	return string(out)
}

// TestTwoStreamsOneStack runs one deployment (one events queue, one kick
// queue, one state table) serving two streams over two prefixes of one
// bucket: each event reaches its own stream, each stream commits through its
// own FIFO group, and each table holds exactly its prefix's rows.
func TestTwoStreamsOneStack(t *testing.T) {
	f := newFixture(t)
	f.configJSON = f.twoStreamConfig()
	f.app = f.newApp()
	// Both tables registered in the Glue Data Catalog (GlueDatabase).
	ctx := t.Context()
	gl := glue.NewFromConfig(awstest.Config(t, f.endpoint))
	db := strings.ReplaceAll(f.bucket, "-", "_")
	if _, err := gl.CreateDatabase(ctx, &glue.CreateDatabaseInput{DatabaseInput: &gluetypes.DatabaseInput{Name: aws.String(db)}}); err != nil {
		t.Fatal(err)
	}
	f.app.Catalog = &gluecatalog.Catalog{Client: gl, Database: db}

	files := map[string][]inputFile{"a": makeInputs("a", 7), "b": makeInputs("b", 5)}
	f.upload(files["a"])
	f.upload(files["b"])
	if failed := f.drain(); len(failed) > 0 {
		t.Fatalf("discovery failed messages %q", failed)
	}
	if f.commitCalls < 2 {
		t.Fatalf("%d commit runs, want at least one per stream", f.commitCalls)
	}
	for _, id := range []string{"a", "b"} {
		st := f.stateOf("tables/" + id + "/_tributary/checkpoint/")
		checkRows(t, readDeltaTable(t, f.endpoint, "s3://"+f.bucket+"/tables/"+id), files[id])
		var got, want []string
		for e, err := range st.Entries(t.Context(), id) {
			if err != nil {
				t.Fatal(err)
			}
			if e.State != state.Committed {
				t.Errorf("stream %s: file %q is %s, want %s", id, e.Path, e.State, state.Committed)
			}
			got = append(got, e.Path)
		}
		for _, in := range files[id] {
			want = append(want, strings.TrimPrefix(in.Key, sourcePrefix+id+"/"))
		}
		slices.Sort(got)
		slices.Sort(want)
		if !slices.Equal(got, want) {
			t.Fatalf("stream %s file state paths:\n got %q\nwant %q", id, got, want)
		}
	}
	for _, id := range []string{"a", "b"} {
		out, err := gl.GetTable(ctx, &glue.GetTableInput{DatabaseName: aws.String(db), Name: aws.String(lambdafn.CatalogTableName(id))})
		if err != nil {
			t.Fatalf("catalog table of stream %s: %v", id, err)
		}
		tb := out.Table
		if aws.ToString(tb.TableType) != "EXTERNAL_TABLE" || tb.Parameters["table_type"] != "DELTA" ||
			aws.ToString(tb.StorageDescriptor.Location) != "s3://"+f.bucket+"/tables/"+id+"/" {
			t.Fatalf("catalog table of stream %s: type %s, parameters %v, location %s", id,
				aws.ToString(tb.TableType), tb.Parameters, aws.ToString(tb.StorageDescriptor.Location))
		}
		var cols []string
		for _, c := range tb.StorageDescriptor.Columns {
			cols = append(cols, aws.ToString(c.Name)+" "+aws.ToString(c.Type))
		}
		if want := []string{"file string", "line bigint", "msg string", "_rescued_data string"}; !slices.Equal(cols, want) {
			t.Fatalf("catalog columns of stream %s: %q, want %q", id, cols, want)
		}
	}
	// One EMF line per committed batch, dimensioned by its stream.
	lines := f.metrics.String()
	for _, id := range []string{"a", "b"} {
		if !strings.Contains(lines, `"StreamId":"`+id+`"`) {
			t.Errorf("no metrics line with StreamId %q in %s", id, lines)
		}
	}
}
