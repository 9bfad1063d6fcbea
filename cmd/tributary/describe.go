package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"path/filepath"
	"sort"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/tributary-io/tributary/core/delta"
	"github.com/tributary-io/tributary/core/delta/scan"
	"github.com/tributary-io/tributary/core/schema"
	"github.com/tributary-io/tributary/infra/streams"
)

// tableDetail mirrors DESCRIBE DETAIL's columns.
type tableDetail struct {
	Format           string            `json:"format"`
	ID               string            `json:"id"`
	Name             string            `json:"name,omitempty"`
	Location         string            `json:"location"`
	CreatedAt        string            `json:"createdAt,omitempty"`
	Version          int64             `json:"version"`
	NumFiles         int               `json:"numFiles"`
	SizeInBytes      int64             `json:"sizeInBytes"`
	NumRecords       int64             `json:"numRecords"`
	PartitionColumns []string          `json:"partitionColumns"`
	Properties       map[string]string `json:"properties"`
	MinReaderVersion int               `json:"minReaderVersion"`
	MinWriterVersion int               `json:"minWriterVersion"`
	TableFeatures    []string          `json:"tableFeatures"`
	Schema           json.RawMessage   `json:"schema"`
	Txns             map[string]int64  `json:"streamingTxns,omitempty"`
	schemaText       string
}

func cmdDescribe(ctx context.Context, args []string, stdout io.Writer) error {
	fs := flag.NewFlagSet("describe", flag.ContinueOnError)
	asJSON := fs.Bool("json", false, "print JSON")
	var loc string
	if len(args) > 0 && args[0] != "" && args[0][0] != '-' {
		loc, args = args[0], args[1:]
	}
	if err := fs.Parse(args); err != nil {
		return fmt.Errorf("%w: %v", errUsage, err)
	}
	if loc == "" && fs.NArg() == 1 {
		loc = fs.Arg(0)
	}
	if loc == "" {
		return fmt.Errorf("%w: describe needs a table location", errUsage)
	}
	e, err := env(ctx, nil, loc)
	if err != nil {
		return err
	}
	st, err := e.OpenExistingStore(loc) // read-only: creates nothing
	if err != nil {
		return fmt.Errorf("table %s: %w", loc, err)
	}
	defer streams.CloseStore(st)
	snap, err := delta.NewTable(st, delta.WithLocation(locationURI(loc))).Snapshot(ctx)
	if err != nil {
		return fmt.Errorf("table %s: %w", loc, err)
	}
	d, err := detail(ctx, loc, snap)
	if err != nil {
		return err
	}
	if *asJSON {
		enc := json.NewEncoder(stdout)
		enc.SetIndent("", "  ")
		return enc.Encode(d)
	}
	tw := tabwriter.NewWriter(stdout, 0, 4, 2, ' ', 0)
	fmt.Fprintf(tw, "location\t%s\nid\t%s\nversion\t%d\nnumFiles\t%d\nsizeInBytes\t%d\nnumRecords\t%d\n",
		d.Location, d.ID, d.Version, d.NumFiles, d.SizeInBytes, d.NumRecords)
	fmt.Fprintf(tw, "protocol\t(%d, %d) %v\npartitionColumns\t%v\n", d.MinReaderVersion, d.MinWriterVersion, d.TableFeatures, d.PartitionColumns)
	keys := make([]string, 0, len(d.Properties))
	for k := range d.Properties {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		fmt.Fprintf(tw, "property %s\t%s\n", k, d.Properties[k])
	}
	fmt.Fprintf(tw, "schema\t%s\n", d.schemaText)
	return tw.Flush()
}

// locationURI turns a table location (a local directory or a URL) into the
// URI absolute paths in its log start with.
func locationURI(loc string) string {
	if strings.Contains(loc, "://") {
		return loc
	}
	if abs, err := filepath.Abs(loc); err == nil {
		return "file://" + filepath.ToSlash(abs)
	}
	return loc
}

func detail(ctx context.Context, loc string, snap *delta.Snapshot) (*tableDetail, error) {
	d := &tableDetail{
		Format: "delta", ID: snap.Metadata.ID, Name: snap.Metadata.Name, Location: loc,
		Version: snap.Version, NumFiles: snap.NumFiles(),
		PartitionColumns: append([]string{}, snap.Metadata.PartitionColumns...),
		Properties:       snap.Configuration(),
		MinReaderVersion: snap.Protocol.MinReaderVersion,
		MinWriterVersion: snap.Protocol.MinWriterVersion,
		TableFeatures:    append(append([]string{}, snap.Protocol.ReaderFeatures...), snap.Protocol.WriterFeatures...),
		Schema:           json.RawMessage(snap.Metadata.SchemaString),
		Txns:             map[string]int64{},
	}
	if d.Properties == nil {
		d.Properties = map[string]string{}
	}
	if snap.Metadata.CreatedTime != nil {
		d.CreatedAt = time.UnixMilli(*snap.Metadata.CreatedTime).UTC().Format(time.RFC3339)
	}
	for add := range snap.Files() {
		d.SizeInBytes += add.Size
	}
	// Live rows: stats (or the Parquet footer of files without them) minus
	// the rows deletion vectors remove.
	rc, err := scan.CountRows(ctx, snap)
	if err != nil {
		return nil, fmt.Errorf("table %s: counting rows: %w", loc, err)
	}
	d.NumRecords = rc.Rows
	for app, t := range snap.Txns() {
		d.Txns[app] = t.Version
	}
	if s := snap.Schema(); s != nil {
		d.schemaText = schema.FormatDDL(fieldsAsHints(s))
	}
	return d, nil
}

// fieldsAsHints renders a schema's top-level fields as DDL.
func fieldsAsHints(s *schema.StructType) []schema.HintField {
	out := make([]schema.HintField, len(s.Fields))
	for i, f := range s.Fields {
		out[i] = schema.HintField{Path: []string{f.Name}, Type: f.Type}
	}
	return out
}
