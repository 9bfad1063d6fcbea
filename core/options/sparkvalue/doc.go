// Package sparkvalue parses and formats the value syntax of Spark options,
// as Tributary's options read them: intervals ("14 days", "interval 1
// week"), byte sizes ("512m", "10g"), booleans, counts and timestamps
// (Spark's string-to-timestamp cast, UTC as the session time zone).
package sparkvalue
