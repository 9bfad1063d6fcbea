package readeropts

import (
	"fmt"
	"github.com/tributary-io/tributary/core/options/sparkvalue"
	"strconv"
	"strings"

	"github.com/tributary-io/tributary/core/formats/csvfmt"
)

// csvCharOpt is a one-character CSV option (quote, escape,
// charToEscapeQuoteEscaping, comment): "" turns it off, as in Spark.
func csvCharOpt(name string) Spec {
	return Spec{
		Name: name, Formats: []FileFormat{FormatCSV},
		Set: func(r *Reader, f FileFormat, v string) error {
			if _, err := csvfmt.Char(name, v); err != nil {
				return err
			}
			r.Options[name] = v
			return nil
		},
		Get: func(r *Reader) (string, bool) {
			v, ok := r.Options[name]
			return strconv.Quote(v), ok
		},
	}
}

// csvOptions are the CSV reader options Tributary honours (package csvfmt
// reads them from Reader.Options).
func csvOptions() []Spec {
	csvOnly := []FileFormat{FormatCSV}
	return []Spec{
		doc(Spec{
			Name: "sep", Formats: csvOnly,
			Set: func(r *Reader, f FileFormat, v string) error {
				if _, err := csvfmt.Delimiter(v); err != nil {
					return err
				}
				r.Options["sep"] = v
				return nil
			},
			Get: func(r *Reader) (string, bool) {
				v, ok := r.Options["sep"]
				return strconv.Quote(v), ok
			},
		}, ",", "The value separator (alias delimiter): one or more characters; \\t, \\u0000 and Spark's other escapes are resolved."),
		doc(readerOption("header", kBool, csvOnly, nil, nil), "false",
			"Whether the first line of every file names its columns (inference takes the names; with a rescued data column, columns are matched by name); false names them _c0, _c1, ..."),
		doc(csvCharOpt("quote"), "\"", "The quote character; \"\" turns quoting off."),
		doc(csvCharOpt("escape"), "\\", "The character that escapes a quote inside a quoted value."),
		doc(csvCharOpt("charToEscapeQuoteEscaping"), "escape, or none when escape is the quote",
			"The character that escapes the escape character before a quote (the quote then closes the value)."),
		doc(csvCharOpt("comment"), "", "Lines starting with this character are skipped (none by default)."),
		doc(readerOption("nullValue", kString, []FileFormat{FormatCSV, FormatXML}, nil, nil), "\"\"",
			"The text read as null (an empty unquoted value is always null)."),
		doc(readerOption("emptyValue", kString, csvOnly, nil, nil), "\"\"",
			"The value of a quoted empty string (\"\"); it is null when it equals nullValue, as by default."),
		doc(readerOption("nanValue", kString, csvOnly, nil, nil), "NaN", "The text read as NaN in DOUBLE and FLOAT columns (and inferred as DOUBLE)."),
		doc(readerOption("positiveInf", kString, csvOnly, nil, nil), "Inf", "The text read as +Infinity in DOUBLE and FLOAT columns (and inferred as DOUBLE)."),
		doc(readerOption("negativeInf", kString, csvOnly, nil, nil), "-Inf", "The text read as -Infinity in DOUBLE and FLOAT columns (and inferred as DOUBLE)."),
		doc(readerOption("enforceSchema", kBool, csvOnly, nil, nil), "true",
			"true applies the schema and ignores header names (by position, without a rescued data column); false fails a file whose header does not name the schema's columns in order."),
		doc(readerOption("ignoreLeadingWhiteSpace", kBool, csvOnly, nil, nil), "false", "Whether leading white space of values is dropped (quoted values keep theirs)."),
		doc(readerOption("ignoreTrailingWhiteSpace", kBool, csvOnly, nil, nil), "false", "Whether trailing white space of unquoted values is dropped."),
		doc(readerOption("maxColumns", kPosInt, csvOnly, nil, nil), "20480", "The most values a record may have; more fails the file, naming it and the line."),
		doc(Spec{
			Name: "maxCharsPerColumn", Formats: csvOnly,
			Set: func(r *Reader, f FileFormat, v string) error {
				n, err := strconv.Atoi(strings.TrimSpace(v))
				if err != nil || n == 0 || n < -1 {
					return fmt.Errorf("want a positive integer, or -1 for no limit")
				}
				r.Options["maxCharsPerColumn"] = strconv.Itoa(n)
				return nil
			},
			Get: func(r *Reader) (string, bool) {
				v, ok := r.Options["maxCharsPerColumn"]
				return v, ok
			},
		}, "-1", "The most characters a value may have (-1: no limit); a longer one fails the file, naming it and the line."),
		doc(readerOption("unescapedQuoteHandling", kString, csvOnly, csvfmt.UnescapedQuoteHandlings(), nil), "STOP_AT_DELIMITER",
			"What a quote inside a value that it does not close does: STOP_AT_DELIMITER, BACK_TO_DELIMITER, STOP_AT_CLOSING_QUOTE, SKIP_VALUE (null) or RAISE_ERROR (a malformed record)."),
		doc(readerOption("preferDate", kBool, csvOnly, nil, nil), "true",
			"With cloudFiles.inferColumnTypes, values in the yyyy-MM-dd form infer as DATE; false infers them as TIMESTAMP."),
		doc(readerOption("skipRows", kNonNegInt, csvOnly, nil, nil), "0",
			"How many lines at the start of every file are skipped (comment and empty lines included); the header, if any, is the next record."),
		doc(Spec{
			Name: "parserCaseSensitive", Formats: csvOnly,
			Warning: "parserCaseSensitive is deprecated: use readerCaseSensitive",
			Set: func(r *Reader, f FileFormat, v string) error {
				b, err := sparkvalue.ParseBool(v)
				if err != nil {
					return err
				}
				r.ParserCaseSensitive = &b
				return nil
			},
			Get: func(r *Reader) (string, bool) {
				if r.ParserCaseSensitive == nil {
					return "", false
				}
				return strconv.FormatBool(*r.ParserCaseSensitive), true
			},
		}, "true", "Deprecated form of readerCaseSensitive for CSV headers: false matches a header name to a schema column whose name differs only by case (it must not contradict readerCaseSensitive)."),
		doc(Spec{
			Name: "multiLine", Formats: []FileFormat{FormatJSON, FormatCSV},
			Set: func(r *Reader, f FileFormat, v string) error {
				b, err := sparkvalue.ParseBool(v)
				if err != nil {
					return err
				}
				r.MultiLine = b
				r.Options["multiLine"] = strconv.FormatBool(b)
				return nil
			},
			Get: func(r *Reader) (string, bool) { return strconv.FormatBool(r.MultiLine), true },
		}, "false", "csv: whether a quoted value may span lines (false: every line is a record, as Spark splits them). json: whether a file is one JSON value (an object, or an array of objects, one record each) rather than one per line; such a file is read whole."),
	}
}
