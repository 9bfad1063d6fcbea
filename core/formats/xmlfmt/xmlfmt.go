// Package xmlfmt reads XML files for Tributary the way Databricks Auto
// Loader reads cloudFiles.format "xml" (Spark's XML source, from
// spark-xml: XmlTokenizer, XmlInferSchema, StaxXmlParser).
//
// Records. The rowTag option (required) names the element that is a row;
// every such element, at any depth, is a record: its text runs from its
// start tag to the matching end tag (nested rowTag elements included), or
// is a self-closing tag. Records are found by scanning the stream, so only
// the current record is in memory; comments, CDATA sections, processing
// instructions and declarations do not start records. The file is decoded
// from the encoding option's charset (default UTF-8) first. Each record is
// parsed on its own (encoding/xml, strict, only XML's predefined
// entities): a record that is not well-formed, or that the file ends
// inside of, is malformed and handled by mode (PERMISSIVE keeps a null row
// with the record's text in columnNameOfCorruptRecord, or in the rescued
// data column under that name; DROPMALFORMED drops it; FAILFAST fails the
// file; badRecordsPath records it), and reading goes on with the next
// record.
//
// Names. Element and attribute names are read as written, prefix included
// ("ns:title"); with ignoreNamespace true the prefix is dropped.
// Attributes become columns named attributePrefix + name (default "_"),
// unless excludeAttribute is true; namespace declarations are not
// attributes. The text of an element that also has attributes or child
// elements is the valueTag column (default "_VALUE"). Text and attribute
// values lose their surrounding white space unless ignoreSurroundingSpaces
// is false (then " 1 " is a string, to inference and the read alike); white
// space between child elements is never a value. A value equal to the
// nullValue option (none by default) is null, and so is an empty element.
//
// Inference. A row is a struct of its attributes, its child elements and
// (when it has text) valueTag. A child element without attributes and
// children is a value; one with them is a struct of the same kind; an
// element name repeated within its parent is an array. With
// cloudFiles.inferColumnTypes false (Auto Loader's default) every value is
// a string; with it, Spark's order: long, decimal (prefersDecimal, for
// numbers with a fraction that fit), double, boolean, date (yyyy-MM-dd),
// timestamp, string. Records and files merge as Spark's compatibleType
// does: long and double give double, date and timestamp give timestamp, a
// value and an array give an array, a value and a struct give the struct
// with the value as valueTag, other conflicts string. Fields are sorted by
// name at every level, as Spark's XML inference sorts them; a column that
// is only ever empty is a string. Schema hints and the rescued data column
// apply as for every format.
//
// Reading. Columns match names case-sensitively with a rescued data column
// (unless readerCaseSensitive is false). An attribute or element the
// schema lacks is reported in ReadStats.UnknownFields (schema evolution)
// and rescued; a value that does not parse as its column's type is
// rescued, as JSON ({"price":"abc","_file_path":...}; an element is an
// object of its attributes, children and valueTag). Without a rescued data
// column such values are null and the record counts as a bad record.
package xmlfmt

import (
	"context"
	"fmt"
	"io"
	"strings"

	"github.com/tributary-io/tributary/core/formats/datetimefmt"
	"github.com/tributary-io/tributary/core/formats/fileformat"
	"github.com/tributary-io/tributary/core/options/sparkvalue"
	"github.com/tributary-io/tributary/core/schema"
)

// Option names and defaults.
const (
	RowTagOption           = "rowTag"
	AttributePrefixOption  = "attributePrefix"
	ValueTagOption         = "valueTag"
	ExcludeAttributeOption = "excludeAttribute"
	IgnoreNamespaceOption  = "ignoreNamespace"
	IgnoreSpacesOption     = "ignoreSurroundingSpaces"
	NullValueOption        = "nullValue"
	DefaultAttributePrefix = "_"
	DefaultValueTag        = "_VALUE"
)

// xmlOptions are the XML reader options.
type xmlOptions struct {
	rowTag                  string
	attributePrefix         string
	valueTag                string
	excludeAttribute        bool
	ignoreNamespace         bool
	ignoreSurroundingSpaces bool
	nullValue               *string
	// dt parses DATE and TIMESTAMP values (dateFormat, timestampFormat,
	// timestampNTZFormat, timeZone, locale, enableDateTimeParsingFallback).
	dt *datetimefmt.Parser
}

// CheckRowTag validates a rowTag value: an XML name without '<', '>' or
// white space.
func CheckRowTag(v string) error {
	if v == "" {
		return fmt.Errorf("must not be empty")
	}
	if strings.ContainsAny(v, "<>/ \t\r\n\"'=") {
		return fmt.Errorf("%q is not an element name", v)
	}
	return nil
}

// parseOptions reads the XML options from a format options map (names
// case-insensitive). A missing rowTag wraps fileformat.ErrBadOption.
func parseOptions(m map[string]string) (*xmlOptions, error) {
	o := &xmlOptions{attributePrefix: DefaultAttributePrefix, valueTag: DefaultValueTag, ignoreSurroundingSpaces: true}
	for k, v := range m {
		var err error
		switch strings.ToLower(k) {
		case strings.ToLower(RowTagOption):
			o.rowTag, err = v, CheckRowTag(v)
		case strings.ToLower(AttributePrefixOption):
			o.attributePrefix = v
		case strings.ToLower(ValueTagOption):
			o.valueTag = v
			if v == "" {
				err = fmt.Errorf("must not be empty")
			}
		case strings.ToLower(ExcludeAttributeOption):
			o.excludeAttribute, err = sparkvalue.ParseBool(v)
		case strings.ToLower(IgnoreNamespaceOption):
			o.ignoreNamespace, err = sparkvalue.ParseBool(v)
		case strings.ToLower(IgnoreSpacesOption):
			o.ignoreSurroundingSpaces, err = sparkvalue.ParseBool(v)
		case strings.ToLower(NullValueOption):
			nv := v
			o.nullValue = &nv
		}
		if err != nil {
			return nil, fmt.Errorf("%w: %s: %v", fileformat.ErrBadOption, k, err)
		}
	}
	if o.rowTag == "" {
		return nil, fmt.Errorf("%w: rowTag is required for cloudFiles.format xml", fileformat.ErrBadOption)
	}
	dt, err := datetimefmt.FromOptions(m)
	if err != nil {
		return nil, err
	}
	o.dt = dt
	if o.attributePrefix == o.valueTag {
		return nil, fmt.Errorf("%w: attributePrefix and valueTag must differ", fileformat.ErrBadOption)
	}
	return o, nil
}

// isNull reports whether a text value reads as null.
func (o *xmlOptions) isNull(s string) bool {
	return o.nullValue != nil && s == *o.nullValue
}

// Format is the cloudFiles.format "xml". The zero value is ready to use.
type Format struct{}

// Name returns "xml".
func (Format) Name() string { return "xml" }

// NewInferrer starts a schema inference over XML files.
func (Format) NewInferrer(opts fileformat.InferOptions) fileformat.Inferrer {
	return newInferrer(opts)
}

// Open reads one XML file as rows of s.
func (Format) Open(ctx context.Context, r io.Reader, s *schema.StructType, opts fileformat.ReadOptions) (fileformat.RowReader, error) {
	return open(ctx, r, s, opts)
}
