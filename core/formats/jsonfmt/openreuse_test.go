package jsonfmt

import (
	"context"
	"errors"
	"fmt"
	"io"
	"reflect"
	"strings"
	"testing"

	"github.com/tributary-io/tributary/core/formats/fileformat"
	"github.com/tributary-io/tributary/core/formats/jsonfmt/jsoninfer"
	"github.com/tributary-io/tributary/core/formats/jsonfmt/jsonopt"
	"github.com/tributary-io/tributary/core/schema"
)

// readShared reads doc whole with opts (rows, statistics and error, as
// text) and returns its reader, closed (nil: open failed).
func readShared(t *testing.T, doc string, s *schema.StructType, opts fileformat.ReadOptions) (string, *reader) {
	t.Helper()
	rr, err := Format{}.Open(context.Background(), strings.NewReader(doc), s, opts)
	if err != nil {
		return "open: " + err.Error(), nil
	}
	rd := rr.(*reader)
	var out strings.Builder
	for {
		row, err := rr.Next()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			fmt.Fprintf(&out, "error %v\n", err)
			break
		}
		fmt.Fprintf(&out, "%v\n", row)
	}
	fmt.Fprintf(&out, "%+v", rr.Stats())
	rr.Close()
	return out.String(), rd
}

// TestReusedOptionsReadsAsFresh reads files one after the other with one
// ReadOptions.Reuse: each reader takes the options the one before parsed
// when its options map and text options are equal to theirs, parses its
// own otherwise (another dateFormat, timestampFormat, timeZone,
// multiLine, syntax option or lineSep, or the caller's map changed in
// place), and reads as a reader without Reuse does.
func TestReusedOptionsReadsAsFresh(t *testing.T) {
	s := &schema.StructType{Fields: []schema.Field{
		{Name: "d", Type: schema.DateType, Nullable: true},
		{Name: "t", Type: schema.Timestamp, Nullable: true},
	}}
	const plain = `{"d":"2024/01/02","t":"2024-01-02 03:04:05"}` + "\n" + `{"d":"2024-01-03","t":"2024-01-03T00:00:00Z"}`
	const split = "{\"d\":\n\"2024-01-02\"}"
	const comment = `{"d":"2024-01-02" /* c */}`
	inPlace := map[string]string{"dateFormat": "yyyy/MM/dd"}
	tests := []struct {
		name   string
		opts   map[string]string
		text   fileformat.TextOptions
		doc    string
		before func()
		shared bool // the reader has the options the one before parsed
	}{
		{"dateFormat", map[string]string{"dateFormat": "yyyy/MM/dd"}, fileformat.TextOptions{}, plain, nil, false},
		{"dateFormat again", map[string]string{"dateFormat": "yyyy/MM/dd"}, fileformat.TextOptions{}, plain, nil, true},
		{"no options", map[string]string{}, fileformat.TextOptions{}, plain, nil, false},
		{"no options, nil map", nil, fileformat.TextOptions{}, plain, nil, true},
		{"timestampFormat", map[string]string{"timestampFormat": "yyyy-MM-dd HH:mm:ss"}, fileformat.TextOptions{}, plain, nil, false},
		{"timestampFormat, timeZone", map[string]string{"timestampFormat": "yyyy-MM-dd HH:mm:ss", "timeZone": "America/New_York"}, fileformat.TextOptions{}, plain, nil, false},
		{"multiLine", map[string]string{"multiLine": "true"}, fileformat.TextOptions{}, split, nil, false},
		{"multiLine again", map[string]string{"multiLine": "true"}, fileformat.TextOptions{}, split, nil, true},
		{"multiLine off", map[string]string{"multiLine": "false"}, fileformat.TextOptions{}, split, nil, false},
		{"allowComments", map[string]string{"allowComments": "true"}, fileformat.TextOptions{}, comment, nil, false},
		{"no comments", map[string]string{"allowComments": "false"}, fileformat.TextOptions{}, comment, nil, false},
		{"lineSep", map[string]string{"allowComments": "false"}, fileformat.TextOptions{LineSep: ";"}, `{"d":"2024-01-02"};{"d":null}`, nil, false},
		{"no lineSep", map[string]string{"allowComments": "false"}, fileformat.TextOptions{}, `{"d":"2024-01-02"};{"d":null}`, nil, false},
		{"a bad option", map[string]string{"multiLine": "maybe"}, fileformat.TextOptions{}, plain, nil, false},
		{"a map", inPlace, fileformat.TextOptions{}, plain, nil, false},
		{"the map changed in place", inPlace, fileformat.TextOptions{}, plain, func() { inPlace["dateFormat"] = "yyyy-MM-dd" }, false},
		{"the changed map again", inPlace, fileformat.TextOptions{}, plain, nil, true},
	}
	reuse := &fileformat.Reuse{}
	var prev *jsonopt.Parsed
	for _, tt := range tests {
		if tt.before != nil {
			tt.before()
		}
		opts := fileformat.ReadOptions{FilePath: "f.json", Options: tt.opts, Text: tt.text}
		want, _ := readShared(t, tt.doc, s, opts)
		opts.Reuse = reuse
		got, rd := readShared(t, tt.doc, s, opts)
		var po *jsonopt.Parsed
		if rd != nil {
			po = rd.po
		}
		if got != want {
			t.Errorf("%s: read\n%s\nwith Reuse, want\n%s", tt.name, got, want)
		}
		if shared := po != nil && po == prev; shared != tt.shared {
			t.Errorf("%s: options shared %v, want %v", tt.name, shared, tt.shared)
		}
		if po != nil {
			prev = po
		}
	}
}

// TestReusedCheckerReadsAsFresh reads files one after the other with one
// ReadOptions.Reuse, checking their records against one-pass inferences
// (ReadOptions.Fold): a reader takes over the checker the one before
// left when it is of the same schema and inferrer and never refused a
// record, and each file abandons (or not) as it does with a fresh
// checker: after a refused record, with another inferrer of the same
// schema (narrower types: a reused checker would keep what they widen),
// after the inferrer sampled more.
func TestReusedCheckerReadsAsFresh(t *testing.T) {
	iopts := fileformat.InferOptions{InferColumnTypes: true}
	double, _ := foldInfer(iopts, `{"l":1.5,"s":"x"}`)
	long, _ := foldInfer(iopts, `{"l":1,"s":"x"}`)
	schDouble, schLong := double.Schema(), long.Schema()
	widen := func() {
		if err := long.Add(context.Background(), "f1", strings.NewReader(`{"l":2.5}`)); err != nil {
			t.Fatal(err)
		}
	}
	tests := []struct {
		name    string
		fold    fileformat.Inferrer
		s       *schema.StructType
		doc     string
		before  func()
		abandon bool
		shared  bool // the reader has the checker the one before had
	}{
		{"double", double, schDouble, `{"l":2.5}`, nil, false, false},
		{"double again", double, schDouble, `{"l":3.5,"s":"y"}`, nil, false, true},
		{"a new field", double, schDouble, `{"l":1}` + "\n" + `{"z":1}`, nil, true, true},
		{"after a refused record", double, schDouble, `{"l":4.5}`, nil, false, false},
		{"another inferrer", long, schDouble, `{"l":2.5}`, nil, true, false},
		{"another schema", long, schLong, `{"l":2}`, nil, false, false},
		{"long again", long, schLong, `{"l":3}`, nil, false, true},
		{"the double schema", long, schDouble, `{"l":7}`, nil, false, false},
		{"the double schema again", long, schDouble, `{"l":8}`, nil, false, true},
		{"the inferrer sampled more", long, schDouble, `{"l":7.5}`, widen, false, false},
	}
	// Rows on one Reuse; column batches (the fast decoder, whose records
	// are not scanned when foldSkip) on another.
	reuse, batches := &fileformat.Reuse{}, &fileformat.Reuse{}
	var prev *jsoninfer.Checker
	for _, tt := range tests {
		if tt.before != nil {
			tt.before()
		}
		opts := fileformat.ReadOptions{FilePath: "f.json", Fold: tt.fold}
		wantB := batchPath(t, tt.doc, tt.s, opts, 2, 1, 0)
		opts.Reuse = batches
		if got := batchPath(t, tt.doc, tt.s, opts, 2, 1, 0); !reflect.DeepEqual(got, wantB) {
			t.Errorf("%s, in batches: %+v with Reuse, want %+v", tt.name, got, wantB)
		}
		opts.Reuse = nil
		want, fresh := readShared(t, tt.doc, tt.s, opts)
		opts.Reuse = reuse
		got, rd := readShared(t, tt.doc, tt.s, opts)
		if got != want {
			t.Errorf("%s: read\n%s\nwith Reuse, want\n%s", tt.name, got, want)
		}
		c := rd.fold
		if rd.foldSkip != fresh.foldSkip {
			t.Errorf("%s: foldSkip %v, with a fresh checker %v", tt.name, rd.foldSkip, fresh.foldSkip)
		}
		if abandoned := strings.Contains(got, fileformat.ErrFoldAbandoned.Error()); abandoned != tt.abandon {
			t.Errorf("%s: abandoned %v, want %v:\n%s", tt.name, abandoned, tt.abandon, got)
		}
		if shared := c != nil && c == prev; shared != tt.shared {
			t.Errorf("%s: checker shared %v, want %v", tt.name, shared, tt.shared)
		}
		prev = c
	}
}
