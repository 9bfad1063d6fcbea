package options

import (
	"fmt"
	"path"
	"strconv"
	"strings"
)

// scope says which streams an option applies to.
type scope int

const (
	scopeCloudFiles scope = iota // Auto Loader sources
	scopeReader                  // plain reader options of file formats (Auto Loader sources)
	scopeDelta                   // Delta sources
	scopeSink                    // every stream (writeStream options)
)

func (sc scope) String() string {
	switch sc {
	case scopeCloudFiles:
		return "an Auto Loader (cloudFiles) option"
	case scopeReader:
		return "a plain reader option"
	case scopeDelta:
		return "a Delta source option"
	}
	return "a Delta sink option"
}

// optSpec describes one option.
type optSpec struct {
	name    string
	scope   scope
	formats []FileFormat // scopeReader: the formats it belongs to (nil: all)
	// set parses v into s. Its error message is the reason shown to the user.
	set func(s *Stream, v string) error
	// get returns the effective value for Describe (false: not shown).
	get func(s *Stream) (string, bool)
}

func (o *optSpec) appliesTo(src SourceFormat, f FileFormat) bool {
	switch o.scope {
	case scopeSink:
		return true
	case scopeDelta:
		return src == SourceDelta
	case scopeCloudFiles:
		return src == SourceCloudFiles
	}
	if src != SourceCloudFiles {
		return false
	}
	if f == "" || o.formats == nil {
		return true
	}
	for _, g := range o.formats {
		if g == f {
			return true
		}
	}
	return false
}

// valueKind validates and normalises the value of a generic reader option.
type valueKind int

const (
	kString valueKind = iota
	kBool
	kNonNegInt
	kPosInt
	kRatio
	kTimestamp
)

func normalise(kind valueKind, enum []string, v string) (string, error) {
	if enum != nil {
		for _, e := range enum {
			if strings.EqualFold(strings.TrimSpace(v), e) {
				return e, nil
			}
		}
		return "", fmt.Errorf("want one of %s", strings.Join(enum, ", "))
	}
	switch kind {
	case kBool:
		b, err := ParseBool(v)
		return strconv.FormatBool(b), err
	case kNonNegInt:
		n, err := parseNonNegative(v)
		return strconv.FormatInt(n, 10), err
	case kPosInt:
		n, err := ParsePositiveInt(v)
		return strconv.Itoa(n), err
	case kRatio:
		f, err := strconv.ParseFloat(strings.TrimSpace(v), 64)
		if err != nil || !(f > 0 && f <= 1) {
			return "", fmt.Errorf("invalid value %q: want a number in (0, 1]", v)
		}
		return strconv.FormatFloat(f, 'g', -1, 64), nil
	case kTimestamp:
		t, err := ParseTimestamp(v)
		if err != nil {
			return "", err
		}
		return t.Format("2006-01-02T15:04:05.999999999Z07:00"), nil
	}
	return v, nil
}

// readerOption builds a generic reader option stored in Reader.Options;
// typed, when not nil, also updates a typed field from the normalised value.
func readerOption(name string, kind valueKind, formats []FileFormat, enum []string, typed func(s *Stream, v string)) optSpec {
	return optSpec{
		name: name, scope: scopeReader, formats: formats,
		set: func(s *Stream, v string) error {
			n, err := normalise(kind, enum, v)
			if err != nil {
				return err
			}
			s.Reader.Options[name] = n
			if typed != nil {
				typed(s, n)
			}
			return nil
		},
		get: func(s *Stream) (string, bool) {
			v, ok := s.Reader.Options[name]
			return v, ok
		},
	}
}

// aliases maps alternative option names (lower case) to documented ones.
func aliases() map[string]string {
	return map[string]string{
		"delimiter":         "sep",
		"charset":           "encoding",
		"rescueddatacolumn": "cloudFiles.rescuedDataColumn",
	}
}

func boolOpt(name string, sc scope, field func(s *Stream) *bool) optSpec {
	return optSpec{
		name: name, scope: sc,
		set: func(s *Stream, v string) error {
			b, err := ParseBool(v)
			if err != nil {
				return err
			}
			*field(s) = b
			return nil
		},
		get: func(s *Stream) (string, bool) { return strconv.FormatBool(*field(s)), true },
	}
}

func posIntOpt(name string, sc scope, field func(s *Stream) *int) optSpec {
	return optSpec{
		name: name, scope: sc,
		set: func(s *Stream, v string) error {
			n, err := ParsePositiveInt(v)
			if err != nil {
				return err
			}
			*field(s) = n
			return nil
		},
		get: func(s *Stream) (string, bool) { return strconv.Itoa(*field(s)), true },
	}
}

func bytesOpt(name string, sc scope, field func(s *Stream) *int64, optional bool) optSpec {
	return optSpec{
		name: name, scope: sc,
		set: func(s *Stream, v string) error {
			n, err := ParseBytes(v)
			if err != nil {
				return err
			}
			if n <= 0 {
				return fmt.Errorf("must be greater than 0")
			}
			*field(s) = n
			return nil
		},
		get: func(s *Stream) (string, bool) {
			n := *field(s)
			return FormatBytes(n), !optional || n > 0
		},
	}
}

func stringOpt(name string, sc scope, field func(s *Stream) *string) optSpec {
	return optSpec{
		name: name, scope: sc,
		set: func(s *Stream, v string) error {
			if strings.TrimSpace(v) == "" {
				return fmt.Errorf("must not be empty")
			}
			*field(s) = strings.TrimSpace(v)
			return nil
		},
		get: func(s *Stream) (string, bool) { return *field(s), *field(s) != "" },
	}
}

func unsupportedOpt(name string, sc scope, why string) optSpec {
	return optSpec{
		name: name, scope: sc,
		set: func(*Stream, string) error { return fmt.Errorf("%w: %s", ErrUnsupportedOption, why) },
	}
}

// registry returns every option Tributary knows, by lower-case name.
func registry() map[string]*optSpec {
	textFormats := []FileFormat{FormatJSON, FormatCSV, FormatXML}
	jsonCSV := []FileFormat{FormatJSON, FormatCSV}
	csvOnly := []FileFormat{FormatCSV}
	jsonOnly := []FileFormat{FormatJSON}
	xmlOnly := []FileFormat{FormatXML}
	parquetAvro := []FileFormat{FormatParquet, FormatAvro}
	parquetOnly := []FileFormat{FormatParquet}
	avroOnly := []FileFormat{FormatAvro}
	textLike := []FileFormat{FormatJSON, FormatCSV, FormatText}
	encodingFmts := []FileFormat{FormatJSON, FormatCSV, FormatXML, FormatText}
	caseFmts := []FileFormat{FormatJSON, FormatCSV, FormatXML, FormatParquet, FormatAvro}

	list := []optSpec{
		// --- Auto Loader ---
		{
			name: "cloudFiles.format", scope: scopeCloudFiles,
			set: func(s *Stream, v string) error {
				for _, f := range FileFormats() {
					if strings.EqualFold(strings.TrimSpace(v), string(f)) {
						s.CloudFiles.Format = f
						return nil
					}
				}
				return fmt.Errorf("unknown format: want one of %s", formatList())
			},
			get: func(s *Stream) (string, bool) { return string(s.CloudFiles.Format), s.CloudFiles.Format != "" },
		},
		posIntOpt("cloudFiles.maxFilesPerTrigger", scopeCloudFiles, func(s *Stream) *int { return &s.CloudFiles.MaxFilesPerTrigger }),
		bytesOpt("cloudFiles.maxBytesPerTrigger", scopeCloudFiles, func(s *Stream) *int64 { return &s.CloudFiles.MaxBytesPerTrigger }, true),
		boolOpt("cloudFiles.includeExistingFiles", scopeCloudFiles, func(s *Stream) *bool { return &s.CloudFiles.IncludeExistingFiles }),
		boolOpt("cloudFiles.useNotifications", scopeCloudFiles, func(s *Stream) *bool { return &s.CloudFiles.UseNotifications }),
		stringOpt("cloudFiles.queueUrl", scopeCloudFiles, func(s *Stream) *string { return &s.CloudFiles.QueueURL }),
		posIntOpt("cloudFiles.fetchParallelism", scopeCloudFiles, func(s *Stream) *int { return &s.CloudFiles.FetchParallelism }),
		boolOpt("cloudFiles.allowOverwrites", scopeCloudFiles, func(s *Stream) *bool { return &s.CloudFiles.AllowOverwrites }),
		{
			name: "cloudFiles.maxFileAge", scope: scopeCloudFiles,
			set: func(s *Stream, v string) error {
				d, err := ParseDuration(v)
				if err != nil {
					return err
				}
				if d < MinMaxFileAge {
					return fmt.Errorf("is under the minimum of \"14 days\" (files would be ingested again once forgotten)")
				}
				s.CloudFiles.MaxFileAge = d
				return nil
			},
			get: func(s *Stream) (string, bool) {
				return FormatDuration(s.CloudFiles.MaxFileAge), s.CloudFiles.MaxFileAge > 0
			},
		},
		{
			name: "cloudFiles.backfillInterval", scope: scopeCloudFiles,
			set: func(s *Stream, v string) error {
				d, err := ParseDuration(v)
				if err != nil {
					return err
				}
				if d <= 0 {
					return fmt.Errorf("must be greater than 0")
				}
				s.CloudFiles.BackfillInterval = d
				return nil
			},
			get: func(s *Stream) (string, bool) {
				return FormatDuration(s.CloudFiles.BackfillInterval), s.CloudFiles.BackfillInterval > 0
			},
		},
		boolOpt("cloudFiles.inferColumnTypes", scopeCloudFiles, func(s *Stream) *bool { return &s.CloudFiles.InferColumnTypes }),
		stringOpt("cloudFiles.schemaHints", scopeCloudFiles, func(s *Stream) *string { return &s.CloudFiles.SchemaHints }),
		stringOpt("cloudFiles.schemaLocation", scopeCloudFiles, func(s *Stream) *string { return &s.CloudFiles.SchemaLocation }),
		{
			name: "cloudFiles.schemaEvolutionMode", scope: scopeCloudFiles,
			set: func(s *Stream, v string) error {
				for _, m := range []SchemaEvolutionMode{EvolveAddNewColumns, EvolveAddNewColumnsWithTypeWidening, EvolveRescue, EvolveFailOnNewColumns, EvolveNone} {
					if strings.EqualFold(strings.TrimSpace(v), string(m)) {
						s.CloudFiles.SchemaEvolutionMode = m
						return nil
					}
				}
				return fmt.Errorf("want one of addNewColumns, addNewColumnsWithTypeWidening, rescue, failOnNewColumns, none")
			},
			get: func(s *Stream) (string, bool) {
				return string(s.CloudFiles.SchemaEvolutionMode), s.CloudFiles.SchemaEvolutionMode != ""
			},
		},
		{
			name: "cloudFiles.rescuedDataColumn", scope: scopeCloudFiles,
			set: func(s *Stream, v string) error {
				v = strings.TrimSpace(v)
				if v == "" || strings.ContainsAny(v, ",;{}()\n\t=") || strings.Contains(v, ".") {
					return fmt.Errorf("want a top-level column name such as %q", DefaultRescuedDataColumn)
				}
				s.CloudFiles.RescuedDataColumn = v
				return nil
			},
			get: func(s *Stream) (string, bool) {
				return s.CloudFiles.RescuedDataColumn, s.CloudFiles.RescuedDataColumn != ""
			},
		},
		{
			name: "cloudFiles.partitionColumns", scope: scopeCloudFiles,
			set: func(s *Stream, v string) error {
				s.CloudFiles.PartitionColumns = nil
				if strings.TrimSpace(v) == "" {
					return nil // Databricks: "" means no partition columns
				}
				seen := map[string]bool{}
				for _, c := range strings.Split(v, ",") {
					c = strings.TrimSpace(c)
					if c == "" || strings.ContainsAny(c, "=/ ") {
						return fmt.Errorf("want comma-separated column names (\"date,region\")")
					}
					if seen[strings.ToLower(c)] {
						return fmt.Errorf("column %q is listed twice", c)
					}
					seen[strings.ToLower(c)] = true
					s.CloudFiles.PartitionColumns = append(s.CloudFiles.PartitionColumns, c)
				}
				return nil
			},
			get: func(s *Stream) (string, bool) {
				return strings.Join(s.CloudFiles.PartitionColumns, ","), len(s.CloudFiles.PartitionColumns) > 0
			},
		},
		boolOpt("cloudFiles.validateOptions", scopeCloudFiles, func(s *Stream) *bool { return &s.CloudFiles.ValidateOptions }),
		{
			name: "cloudFiles.cleanSource", scope: scopeCloudFiles,
			set: func(s *Stream, v string) error {
				for _, c := range []CleanSource{CleanOff, CleanDelete, CleanMove} {
					if strings.EqualFold(strings.TrimSpace(v), string(c)) {
						s.CloudFiles.CleanSource = c
						return nil
					}
				}
				return fmt.Errorf("want OFF, DELETE or MOVE")
			},
			get: func(s *Stream) (string, bool) { return string(s.CloudFiles.CleanSource), true },
		},
		stringOpt("cloudFiles.cleanSource.moveDestination", scopeCloudFiles, func(s *Stream) *string { return &s.CloudFiles.MoveDestination }),
		unsupportedOpt("cloudFiles.cleanSource.retentionDuration", scopeCloudFiles, "Tributary cleans a file as soon as its batch is committed"),
		{
			name: "cloudFiles.useManagedFileEvents", scope: scopeCloudFiles,
			set: func(s *Stream, v string) error {
				switch strings.ToLower(strings.TrimSpace(v)) {
				case "false":
					return nil
				case "if_available":
					s.Warnings = append(s.Warnings, "cloudFiles.useManagedFileEvents=if_available: Databricks file events are not available; discovery follows cloudFiles.useNotifications")
					return nil
				case "true":
					return fmt.Errorf("%w: Databricks-managed file events do not exist outside Databricks; use cloudFiles.useNotifications=true", ErrUnsupportedOption)
				}
				return fmt.Errorf("want true, false or if_available")
			},
		},
		bytesOpt("spark.databricks.cloudFiles.schemaInference.sampleSize.numBytes", scopeCloudFiles, func(s *Stream) *int64 { return &s.CloudFiles.SampleSizeNumBytes }, false),
		posIntOpt("spark.databricks.cloudFiles.schemaInference.sampleSize.numFiles", scopeCloudFiles, func(s *Stream) *int { return &s.CloudFiles.SampleSizeNumFiles }),

		// --- generic file-source reader options (every format) ---
		{
			name: "pathGlobFilter", scope: scopeReader,
			set: func(s *Stream, v string) error {
				if v == "" {
					return fmt.Errorf("must not be empty")
				}
				if _, err := path.Match(v, ""); err != nil {
					return fmt.Errorf("invalid glob: %v", err)
				}
				s.Reader.PathGlobFilter = v
				s.Reader.Options["pathGlobFilter"] = v
				return nil
			},
			get: func(s *Stream) (string, bool) { return s.Reader.PathGlobFilter, s.Reader.PathGlobFilter != "" },
		},
		readerOption("recursiveFileLookup", kBool, nil, nil, func(s *Stream, v string) { s.Reader.RecursiveFileLookup = v == "true" }),
		readerOption("ignoreCorruptFiles", kBool, nil, nil, func(s *Stream, v string) { s.Reader.IgnoreCorruptFiles = v == "true" }),
		readerOption("ignoreMissingFiles", kBool, nil, nil, func(s *Stream, v string) { s.Reader.IgnoreMissingFiles = v == "true" }),
		readerOption("modifiedAfter", kTimestamp, nil, nil, func(s *Stream, v string) { t, _ := ParseTimestamp(v); s.Reader.ModifiedAfter = &t }),
		readerOption("modifiedBefore", kTimestamp, nil, nil, func(s *Stream, v string) { t, _ := ParseTimestamp(v); s.Reader.ModifiedBefore = &t }),

		// --- json, csv, xml ---
		readerOption("mode", kString, textFormats, []string{"PERMISSIVE", "DROPMALFORMED", "FAILFAST"}, func(s *Stream, v string) { s.Reader.Mode = v }),
		readerOption("badRecordsPath", kString, textFormats, nil, func(s *Stream, v string) { s.Reader.BadRecordsPath = v }),
		readerOption("columnNameOfCorruptRecord", kString, textFormats, nil, func(s *Stream, v string) { s.Reader.ColumnNameOfCorruptRecord = v }),
		readerOption("prefersDecimal", kBool, textFormats, nil, func(s *Stream, v string) { s.Reader.PrefersDecimal = v == "true" }),
		readerOption("dateFormat", kString, textFormats, nil, nil),
		readerOption("timestampFormat", kString, textFormats, nil, nil),
		readerOption("timestampNTZFormat", kString, textFormats, nil, nil),
		readerOption("locale", kString, textFormats, nil, nil),
		readerOption("timeZone", kString, textFormats, nil, nil),
		readerOption("samplingRatio", kRatio, textFormats, nil, nil),
		readerOption("readerCaseSensitive", kBool, caseFmts, nil, nil),
		readerOption("encoding", kString, encodingFmts, nil, nil),
		readerOption("lineSep", kString, textLike, nil, nil),
		readerOption("multiLine", kBool, jsonCSV, nil, func(s *Stream, v string) { s.Reader.MultiLine = v == "true" }),
		readerOption("enableDateTimeParsingFallback", kBool, jsonCSV, nil, nil),
		readerOption("nullValue", kString, []FileFormat{FormatCSV, FormatXML}, nil, nil),
		readerOption("inferSchema", kBool, []FileFormat{FormatCSV, FormatXML}, nil, nil),

		// --- json ---
		readerOption("allowBackslashEscapingAnyCharacter", kBool, jsonOnly, nil, nil),
		readerOption("allowComments", kBool, jsonOnly, nil, nil),
		readerOption("allowNonNumericNumbers", kBool, jsonOnly, nil, nil),
		readerOption("allowNumericLeadingZeros", kBool, jsonOnly, nil, nil),
		readerOption("allowSingleQuotes", kBool, jsonOnly, nil, nil),
		readerOption("allowUnquotedControlChars", kBool, jsonOnly, nil, nil),
		readerOption("allowUnquotedFieldNames", kBool, jsonOnly, nil, nil),
		readerOption("dropFieldIfAllNull", kBool, jsonOnly, nil, nil),
		readerOption("inferTimestamp", kBool, jsonOnly, nil, nil),
		readerOption("primitivesAsString", kBool, jsonOnly, nil, nil),
		readerOption("singleVariantColumn", kString, jsonOnly, nil, nil),

		// --- csv ---
		readerOption("sep", kString, csvOnly, nil, nil),
		readerOption("header", kBool, csvOnly, nil, nil),
		readerOption("quote", kString, csvOnly, nil, nil),
		readerOption("escape", kString, csvOnly, nil, nil),
		readerOption("charToEscapeQuoteEscaping", kString, csvOnly, nil, nil),
		readerOption("comment", kString, csvOnly, nil, nil),
		readerOption("emptyValue", kString, csvOnly, nil, nil),
		readerOption("nanValue", kString, csvOnly, nil, nil),
		readerOption("positiveInf", kString, csvOnly, nil, nil),
		readerOption("negativeInf", kString, csvOnly, nil, nil),
		readerOption("enforceSchema", kBool, csvOnly, nil, nil),
		readerOption("ignoreLeadingWhiteSpace", kBool, csvOnly, nil, nil),
		readerOption("ignoreTrailingWhiteSpace", kBool, csvOnly, nil, nil),
		readerOption("maxCharsPerColumn", kPosInt, csvOnly, nil, nil),
		readerOption("maxColumns", kPosInt, csvOnly, nil, nil),
		readerOption("preferDate", kBool, csvOnly, nil, nil),
		readerOption("skipRows", kNonNegInt, csvOnly, nil, nil),
		readerOption("parserCaseSensitive", kBool, csvOnly, nil, nil),
		readerOption("unescapedQuoteHandling", kString, csvOnly, []string{"STOP_AT_CLOSING_QUOTE", "BACK_TO_DELIMITER", "STOP_AT_DELIMITER", "SKIP_VALUE", "RAISE_ERROR"}, nil),

		// --- xml ---
		readerOption("rowTag", kString, xmlOnly, nil, nil),
		readerOption("attributePrefix", kString, xmlOnly, nil, nil),
		readerOption("valueTag", kString, xmlOnly, nil, nil),
		readerOption("excludeAttribute", kBool, xmlOnly, nil, nil),
		readerOption("ignoreSurroundingSpaces", kBool, xmlOnly, nil, nil),
		readerOption("ignoreNamespace", kBool, xmlOnly, nil, nil),
		readerOption("rowValidationXSDPath", kString, xmlOnly, nil, nil),
		readerOption("wildcardColName", kString, xmlOnly, nil, nil),

		// --- parquet, avro, text ---
		readerOption("datetimeRebaseMode", kString, parquetAvro, []string{"EXCEPTION", "LEGACY", "CORRECTED"}, nil),
		readerOption("int96RebaseMode", kString, parquetOnly, []string{"EXCEPTION", "LEGACY", "CORRECTED"}, nil),
		readerOption("avroSchema", kString, avroOnly, nil, nil),
		readerOption("wholeText", kBool, []FileFormat{FormatText}, nil, nil),

		// --- Delta source ---
		{
			name: "startingVersion", scope: scopeDelta,
			set: func(s *Stream, v string) error {
				if strings.EqualFold(strings.TrimSpace(v), "latest") {
					s.Delta.StartingVersion = &StartingVersion{Latest: true}
					return nil
				}
				n, err := parseNonNegative(v)
				if err != nil {
					return fmt.Errorf("want a table version (a non-negative integer) or latest")
				}
				s.Delta.StartingVersion = &StartingVersion{Version: n}
				return nil
			},
			get: func(s *Stream) (string, bool) {
				sv := s.Delta.StartingVersion
				if sv == nil {
					return "", false
				}
				if sv.Latest {
					return "latest", true
				}
				return strconv.FormatInt(sv.Version, 10), true
			},
		},
		{
			name: "startingTimestamp", scope: scopeDelta,
			set: func(s *Stream, v string) error {
				t, err := ParseTimestamp(v)
				if err != nil {
					return err
				}
				s.Delta.StartingTimestamp = &t
				return nil
			},
			get: func(s *Stream) (string, bool) {
				if s.Delta.StartingTimestamp == nil {
					return "", false
				}
				return s.Delta.StartingTimestamp.Format("2006-01-02T15:04:05.000Z07:00"), true
			},
		},
		boolOpt("skipChangeCommits", scopeDelta, func(s *Stream) *bool { return &s.Delta.SkipChangeCommits }),
		boolOpt("ignoreDeletes", scopeDelta, func(s *Stream) *bool { return &s.Delta.IgnoreDeletes }),
		boolOpt("ignoreChanges", scopeDelta, func(s *Stream) *bool { return &s.Delta.IgnoreChanges }),
		posIntOpt("maxFilesPerTrigger", scopeDelta, func(s *Stream) *int { return &s.Delta.MaxFilesPerTrigger }),
		bytesOpt("maxBytesPerTrigger", scopeDelta, func(s *Stream) *int64 { return &s.Delta.MaxBytesPerTrigger }, true),
		boolOpt("withEventTimeOrder", scopeDelta, func(s *Stream) *bool { return &s.Delta.WithEventTimeOrder }),
		boolOpt("failOnDataLoss", scopeDelta, func(s *Stream) *bool { return &s.Delta.FailOnDataLoss }),
		unsupportedOpt("readChangeFeed", scopeDelta, "the change data feed is not implemented; use skipChangeCommits or a full refresh"),

		// --- Delta sink ---
		stringOpt("checkpointLocation", scopeSink, func(s *Stream) *string { return &s.Sink.CheckpointLocation }),
		{
			name: "outputMode", scope: scopeSink,
			set: func(s *Stream, v string) error {
				switch strings.ToLower(strings.TrimSpace(v)) {
				case "append":
					s.Sink.OutputMode = OutputAppend
				case "complete":
					s.Sink.OutputMode = OutputComplete
				case "update":
					return fmt.Errorf("%w: the Delta sink takes append or complete; to apply changed rows use an upsert (MERGE) of each batch", ErrUnsupportedOption)
				default:
					return fmt.Errorf("want append or complete")
				}
				return nil
			},
			get: func(s *Stream) (string, bool) { return string(s.Sink.OutputMode), true },
		},
		{
			name: "trigger", scope: scopeSink,
			set: func(s *Stream, v string) error {
				t, err := ParseTrigger(v)
				if err != nil {
					return err
				}
				s.Sink.Trigger = t
				return nil
			},
			get: func(s *Stream) (string, bool) { return s.Sink.Trigger.String(), true },
		},
		boolOpt("mergeSchema", scopeSink, func(s *Stream) *bool { return &s.Sink.MergeSchema }),
		stringOpt("txnAppId", scopeSink, func(s *Stream) *string { return &s.Sink.TxnAppID }),
		{
			name: "txnVersion", scope: scopeSink,
			set: func(s *Stream, v string) error {
				n, err := parseNonNegative(v)
				if err != nil {
					return err
				}
				s.Sink.TxnVersion = &n
				return nil
			},
			get: func(s *Stream) (string, bool) {
				if s.Sink.TxnVersion == nil {
					return "", false
				}
				return strconv.FormatInt(*s.Sink.TxnVersion, 10), true
			},
		},
	}
	m := make(map[string]*optSpec, len(list))
	for i := range list {
		m[strings.ToLower(list[i].name)] = &list[i]
	}
	return m
}

func formatList() string {
	var names []string
	for _, f := range FileFormats() {
		names = append(names, string(f))
	}
	return strings.Join(names, ", ")
}

// OptionNames lists the documented names of every option Tributary knows
// (aliases excluded), sorted case-insensitively.
func OptionNames() []string {
	var names []string
	for _, o := range registry() {
		names = append(names, o.name)
	}
	sortFold(names)
	return names
}
