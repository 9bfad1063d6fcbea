package readeropts

import (
	"fmt"
	"path"
	"strings"
	"time"

	"github.com/tributary-io/tributary/core/formats/avrofmt"
	"github.com/tributary-io/tributary/core/formats/xmlfmt"
	"github.com/tributary-io/tributary/core/options/location"
)

// Specs returns every reader option Tributary knows, honoured and refused.
func Specs() []Spec {
	textFormats := []FileFormat{FormatJSON, FormatCSV, FormatXML}
	jsonCSV := []FileFormat{FormatJSON, FormatCSV}
	// The datetime options apply to every reader that parses dates and
	// timestamps from text.
	datetimeFmts := []FileFormat{FormatJSON, FormatCSV, FormatXML}
	jsonOnly := []FileFormat{FormatJSON}
	xmlOnly := []FileFormat{FormatXML}
	parquetAvro := []FileFormat{FormatParquet, FormatAvro}
	parquetOnly := []FileFormat{FormatParquet}
	avroOnly := []FileFormat{FormatAvro}
	textLike := []FileFormat{FormatJSON, FormatCSV, FormatText}
	encodingFmts := []FileFormat{FormatJSON, FormatCSV, FormatXML, FormatText}
	caseFmts := []FileFormat{FormatJSON, FormatCSV, FormatXML, FormatParquet, FormatORC, FormatAvro}

	list := []Spec{
		// --- generic file-source reader options (every format) ---
		doc(Spec{
			Name: "pathGlobFilter",
			Set: func(r *Reader, f FileFormat, v string) error {
				if v == "" {
					return fmt.Errorf("must not be empty")
				}
				if _, err := path.Match(v, ""); err != nil {
					return fmt.Errorf("invalid glob: %v", err)
				}
				r.PathGlobFilter = v
				r.Options["pathGlobFilter"] = v
				return nil
			},
			Get: func(r *Reader) (string, bool) { return r.PathGlobFilter, r.PathGlobFilter != "" },
		}, "", "A glob on file names (\"*.json\"); other files are not discovered."),
		doc(readerOption("recursiveFileLookup", kBool, nil, nil, func(r *Reader, v string) { r.RecursiveFileLookup = v == "true" }),
			"false", "Auto Loader lists subdirectories either way; true skips partition inference from key=value directories, so it cannot be combined with cloudFiles.partitionColumns."),
		doc(readerOption("ignoreCorruptFiles", kBool, nil, nil, func(r *Reader, v string) { r.IgnoreCorruptFiles = v == "true" }),
			"false", "Whether a file that cannot be read (bad compression, truncated, unreadable content) is skipped, keeping the rows read before the corruption, and recorded SKIPPED; false fails the batch naming the file."),
		doc(readerOption("ignoreMissingFiles", kBool, nil, nil, func(r *Reader, v string) { r.IgnoreMissingFiles = v == "true" }),
			"false", "Whether a file deleted after its discovery is skipped and recorded SKIPPED; false fails the batch naming the file."),
		doc(timestampOpt("modifiedAfter", func(r *Reader) **time.Time { return &r.ModifiedAfter }),
			"", "Only files modified strictly after this timestamp (\"2020-06-01T13:00:00\", UTC unless it names a zone) are discovered, by listing and by notifications."),
		doc(timestampOpt("modifiedBefore", func(r *Reader) **time.Time { return &r.ModifiedBefore }),
			"", "Only files modified strictly before this timestamp (\"2020-06-01T13:00:00\", UTC unless it names a zone) are discovered, by listing and by notifications."),

		// --- json, csv, xml ---
		doc(readerOption("mode", kString, textFormats, []string{"PERMISSIVE", "DROPMALFORMED", "FAILFAST"}, func(r *Reader, v string) { r.Mode = v }),
			"PERMISSIVE", "Bad records (malformed; with no rescued data column also a value that does not fit its type): PERMISSIVE keeps them (text in the corrupt-record column), DROPMALFORMED drops them, FAILFAST fails the batch."),
		doc(Spec{
			Name: "badRecordsPath", Formats: textFormats,
			Set: func(r *Reader, f FileFormat, v string) error {
				v = strings.TrimSpace(v)
				if _, err := location.Parse(v); err != nil {
					return err
				}
				r.BadRecordsPath = v
				r.Options["badRecordsPath"] = v
				return nil
			},
			Get: func(r *Reader) (string, bool) { return r.BadRecordsPath, r.BadRecordsPath != "" },
		}, "", "Where bad records and unreadable or missing files are recorded as JSON (<path>/<time>/bad_records/, /bad_files/) instead of failing or being kept; the load goes on."),
		doc(Spec{
			Name: "columnNameOfCorruptRecord", Formats: textFormats,
			Set: func(r *Reader, f FileFormat, v string) error {
				v = strings.TrimSpace(v)
				if v == "" || strings.ContainsAny(v, ",;{}()\n\t=.`") {
					return fmt.Errorf("want a top-level column name such as %q", "_corrupt_record")
				}
				r.ColumnNameOfCorruptRecord = v
				r.Options["columnNameOfCorruptRecord"] = v
				return nil
			},
			Get: func(r *Reader) (string, bool) {
				return r.ColumnNameOfCorruptRecord, r.ColumnNameOfCorruptRecord != ""
			},
		}, "_corrupt_record", "The string column that holds a malformed record's text in PERMISSIVE mode (inference adds it when a sampled record is malformed)."),
		doc(readerOption("prefersDecimal", kBool, textFormats, nil, func(r *Reader, v string) { r.PrefersDecimal = v == "true" }),
			"false", "With cloudFiles.inferColumnTypes, numbers with a fraction infer as DECIMAL(p,s) when they fit (1.5 is DECIMAL(2,1)) instead of DOUBLE."),
		doc(datetimeOpt("dateFormat", datetimeFmts), "yyyy-MM-dd (lenient)",
			"The Spark datetime pattern DATE values are parsed with (\"dd/MM/yyyy\"); unset, Spark's lenient default parsing. Letters Spark does not parse with (E, F, q, Q, week-based) are refused at load time."),
		doc(datetimeOpt("timestampFormat", datetimeFmts), "yyyy-MM-dd'T'HH:mm:ss[.SSS][XXX] (lenient)",
			"The Spark datetime pattern TIMESTAMP values are parsed with; unset, Spark's lenient ISO 8601 parsing. A value without a zone is in timeZone."),
		doc(datetimeOpt("timestampNTZFormat", datetimeFmts), "yyyy-MM-dd'T'HH:mm:ss[.SSS] (lenient)",
			"The Spark datetime pattern TIMESTAMP_NTZ values are parsed with (any zone in the value is ignored)."),
		doc(datetimeOpt("locale", datetimeFmts), "en-US",
			"The language of month and am-pm names in the datetime patterns (MMM, MMMM, a): en, fr, de, es, it, pt or nl tags; others are refused."),
		doc(datetimeOpt("timeZone", datetimeFmts), "UTC",
			"The zone of TIMESTAMP values written without one: a region id (America/Los_Angeles), an offset (+01:00) or UTC."),
		doc(samplingRatioOpt(jsonCSV), "1.0",
			"The fraction of records schema inference samples, in (0, 1] (drawn with a fixed seed, so a file always infers alike); the files sampled are still bounded by cloudFiles.schemaInference.sampleSize.*."),
		doc(readerOption("readerCaseSensitive", kBool, caseFmts, nil, func(r *Reader, v string) { r.CaseSensitive = v == "true" }),
			"true", "With a rescued data column: true rescues a field whose name differs from its column only by case; false reads it into the column."),
		doc(encodingOpt(encodingFmts), "UTF-8",
			"The files' charset, a Java charset name (UTF-8, ISO-8859-1, windows-1252, UTF-16LE, ...; alias charset). As in Spark, JSON read line by line (multiLine false) needs lineSep with any charset but UTF-8, and its UTF-16/UTF-32 need their byte order in the name; csv, xml and text decode whole files and need neither."),
		doc(lineSepOpt(textLike), "\\n, \\r\\n or \\r",
			"The string that ends a record (not empty; any length, one character for csv); by default a line ends at \\n, \\r\\n or \\r."),
		doc(readerOption("enableDateTimeParsingFallback", kBool, datetimeFmts, nil, nil), "false with a pattern option",
			"Whether a date or timestamp that dateFormat, timestampFormat or timestampNTZFormat does not match is parsed as without the pattern (Spark's lenient default parsing) instead of failing."),
		refused("inferSchema", []FileFormat{FormatCSV, FormatXML}, "Auto Loader infers with cloudFiles.inferColumnTypes"),

		// --- json ---
		doc(readerOption("allowBackslashEscapingAnyCharacter", kBool, jsonOnly, nil, nil), "false",
			"Whether a backslash may escape any character (\\q is q); false makes other escapes than JSON's malformed."),
		doc(readerOption("allowComments", kBool, jsonOnly, nil, nil), "false",
			"Whether Java/C++ comments (/* */ and // to the end of the line) are skipped; a record of comments only is no record."),
		doc(readerOption("allowNonNumericNumbers", kBool, jsonOnly, nil, nil), "true",
			"Whether the unquoted numbers NaN, Infinity, +Infinity and -Infinity are read (as DOUBLE); false makes them malformed."),
		doc(readerOption("allowNumericLeadingZeros", kBool, jsonOnly, nil, nil), "false",
			"Whether numbers may have leading zeros (007 is 7); false makes them malformed."),
		doc(readerOption("allowSingleQuotes", kBool, jsonOnly, nil, nil), "true",
			"Whether names and strings may be single-quoted ('a'); false makes them malformed."),
		doc(readerOption("allowUnquotedControlChars", kBool, jsonOnly, nil, nil), "false",
			"Whether strings may hold raw control characters (tab, newline, below U+0020); false makes them malformed."),
		doc(readerOption("allowUnquotedFieldNames", kBool, jsonOnly, nil, nil), "false",
			"Whether field names may be unquoted ({a: 1}: letters, digits, _ and $); false makes them malformed."),
		doc(readerOption("dropFieldIfAllNull", kBool, jsonOnly, nil, func(r *Reader, v string) { r.DropFieldIfAllNull = v == "true" }),
			"false", "Whether inference leaves out columns whose sampled values are all null (or empty arrays or structs) instead of typing them STRING."),
		doc(readerOption("inferTimestamp", kBool, jsonOnly, nil, nil), "false",
			"With cloudFiles.inferColumnTypes, strings that timestampFormat (or Spark's default timestamp parsing) reads infer as TIMESTAMP."),
		doc(readerOption("primitivesAsString", kBool, jsonOnly, nil, func(r *Reader, v string) { r.PrimitivesAsString = v == "true" }),
			"false", "With cloudFiles.inferColumnTypes, numbers and booleans infer as STRING (objects and arrays keep their shape)."),
		refused("singleVariantColumn", jsonOnly, "the VARIANT type is not supported yet"),

		// --- csv ---

		// --- xml ---
		doc(Spec{
			Name: "rowTag", Formats: xmlOnly,
			Set: func(r *Reader, f FileFormat, v string) error {
				if err := xmlfmt.CheckRowTag(v); err != nil {
					return err
				}
				r.Options["rowTag"] = v
				return nil
			},
			Get: func(r *Reader) (string, bool) {
				v, ok := r.Options["rowTag"]
				return v, ok
			},
		}, "", "xml (required): the element that is a row (\"book\"), at any depth; each such element is one record."),
		doc(readerOption("attributePrefix", kString, xmlOnly, nil, nil), "_",
			"xml: the prefix of the columns made from attributes (<book id=\"1\"> gives _id)."),
		doc(Spec{
			Name: "valueTag", Formats: xmlOnly,
			Set: func(r *Reader, f FileFormat, v string) error {
				if v == "" {
					return fmt.Errorf("must not be empty")
				}
				r.Options["valueTag"] = v
				return nil
			},
			Get: func(r *Reader) (string, bool) {
				v, ok := r.Options["valueTag"]
				return v, ok
			},
		}, "_VALUE", "xml: the column holding the text of an element that also has attributes or child elements."),
		doc(readerOption("excludeAttribute", kBool, xmlOnly, nil, nil), "false",
			"xml: whether attributes are left out (no attribute columns)."),
		doc(readerOption("ignoreSurroundingSpaces", kBool, xmlOnly, nil, nil), "true",
			"xml: whether white space around values is dropped."),
		doc(readerOption("ignoreNamespace", kBool, xmlOnly, nil, nil), "false",
			"xml: whether namespace prefixes of element and attribute names are dropped (ns:title is read as title)."),
		refused("rowValidationXSDPath", xmlOnly, xmlIssue),
		refused("wildcardColName", xmlOnly, xmlIssue),

		// --- parquet, avro, text ---
		refused("datetimeRebaseMode", parquetAvro, formatsIssue),
		refused("int96RebaseMode", parquetOnly, formatsIssue),
		doc(Spec{
			Name: "avroSchema", Formats: avroOnly,
			Set: func(r *Reader, f FileFormat, v string) error {
				if _, err := avrofmt.ParseSchema(v); err != nil {
					return err
				}
				r.Options["avroSchema"] = v
				return nil
			},
			Get: func(r *Reader) (string, bool) {
				v, ok := r.Options["avroSchema"]
				return v, ok
			},
		}, "", "avro: a reader schema (Avro schema JSON) that gives the table schema instead of the files' schemas; files' fields are matched to it by name."),
		doc(readerOption("wholeText", kBool, []FileFormat{FormatText}, nil, nil),
			"false", "text: whether each file is one row (its whole content in value) instead of one row per line."),
	}
	return append(list, csvOptions()...)
}
