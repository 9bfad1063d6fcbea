// Package options provides Tributary's stream options: the Auto Loader
// ("cloudFiles"), reader, Delta-source and Delta-sink options of a stream,
// under the exact names, defaults and validation rules that Databricks users
// know, parsed into a typed Stream.
//
// Option names are case-insensitive, as in Spark (options live in a
// CaseInsensitiveMap); every name is reported in its documented spelling.
// Values are strings as in Spark's DataStreamReader.option. Every
// configuration error is found at parse time and returned as an *OptionError
// that names the stream, the option and the offending value; it wraps
// ErrInvalidOption and, where it applies, ErrUnknownOption,
// ErrUnsupportedOption or ErrSharedLocation.
//
// Value syntax:
//   - durations: Spark interval strings ("1 day", "14 days",
//     "2 hours 30 minutes", "interval 1 week"), see sparkvalue.ParseDuration;
//   - byte sizes: Spark byte strings ("1024", "10k", "512m", "10g", "1gb"),
//     see sparkvalue.ParseBytes;
//   - booleans: true or false in any case;
//   - timestamps: "2019-01-01T00:00:00.000Z" or "2019-01-01", see
//     ParseTimestamp;
//   - triggers: "availableNow", "once", "processingTime=5 minutes", see
//     trigger.Parse.
//
// A configuration file holding several streams is read with LoadConfig and
// checked across streams with (*Config).Validate.
package options
