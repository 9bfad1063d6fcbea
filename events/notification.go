// Package events provides Tributary's wire formats: the object notifications
// that arrive in the SQS events queue (S3 event notifications, the same
// wrapped in an SNS envelope, and EventBridge "Object Created" / "Object
// Deleted" events) and the messages the functions send each other (Kick).
//
// Parse turns one SQS message body into zero or more Notifications. It never
// drops information silently: every record comes back with a Kind that tells
// the caller what to do with it (ingest Created, log and ignore the rest). A
// body that cannot be understood yields an error wrapping ErrMalformed that
// names the JSON path at fault, so the discovery function can fail that one
// message (SQS partial batch response) and let it reach the dead-letter queue.
//
// Key encoding differs between the formats, and Parse hides the difference:
// keys in S3 event notifications (direct or via SNS) are form-URL-encoded
// ("red flower.jpg" arrives as "red+flower.jpg", a literal '+' as "%2B") and
// are decoded with url.QueryUnescape semantics; keys in EventBridge events are
// sent as they are and are returned unchanged. Notification.Key is always the
// real object key.
package events

import (
	"errors"
	"fmt"
	"strings"
	"time"
)

// ErrMalformed is wrapped by every error Parse and UnmarshalKick return: the
// message is not one Tributary understands and retrying it will not help.
var ErrMalformed = errors.New("events: malformed message")

// Kind classifies a notification by what the discovery function does with it.
type Kind int

// Notification kinds.
const (
	// Created: an object was created (Put, Post, Copy, CompleteMultipartUpload,
	// EventBridge "Object Created"). The only kind that is ingested.
	Created Kind = iota + 1
	// Removed: an object was deleted (ObjectRemoved:*, LifecycleExpiration:*,
	// EventBridge "Object Deleted"). Logged and ignored.
	Removed
	// Folder: a created object whose key ends in '/', a "folder marker" made by
	// the S3 console or by tools. Logged and ignored; it is never ingested.
	Folder
	// Other: a valid S3 event of a type Tributary does not act on (restore,
	// tagging, ACL, replication, lifecycle transition, ...). Ignored.
	Other
)

// String returns the kind's name.
func (k Kind) String() string {
	switch k {
	case Created:
		return "Created"
	case Removed:
		return "Removed"
	case Folder:
		return "Folder"
	case Other:
		return "Other"
	default:
		return fmt.Sprintf("Kind(%d)", int(k))
	}
}

// Source names the envelope a notification arrived in.
type Source string

// Notification sources.
const (
	// SourceS3 is an S3 event notification delivered directly to SQS.
	SourceS3 Source = "s3"
	// SourceSNS is an S3 event notification wrapped in an SNS envelope.
	SourceSNS Source = "sns"
	// SourceEventBridge is an EventBridge event from source aws.s3 (possibly
	// itself wrapped in an SNS envelope).
	SourceEventBridge Source = "eventbridge"
)

// Notification is one object event, with its key decoded.
type Notification struct {
	// Kind says whether to ingest (Created) or ignore the event.
	Kind Kind
	// Source is the envelope the event arrived in.
	Source Source
	// Bucket is the bucket name.
	Bucket string
	// Key is the object key, decoded: the exact key to pass to GetObject.
	Key string
	// Size is the object size in bytes (0 for removals, which carry none).
	Size int64
	// ETag is the object's ETag without surrounding quotes ("" for removals).
	ETag string
	// VersionID is the object version in a versioned bucket, else "".
	VersionID string
	// Sequencer orders events for one key: for the same key, a greater value
	// (compare with CompareSequencers) is a later event. May be "".
	Sequencer string
	// EventTime is when S3 finished processing the request.
	EventTime time.Time
	// EventName is the S3 event name ("ObjectCreated:Put"; a MinIO-style "s3:"
	// prefix is removed) or, for EventBridge, the detail-type followed by ':'
	// and detail.reason when present ("Object Created:PutObject").
	EventName string
}

// NormalizeETag returns etag without surrounding whitespace, a weak-validator
// prefix ("W/") or surrounding double quotes, so that the ETag of an event
// (unquoted), of a HeadObject response (quoted) and of a listing compare equal.
func NormalizeETag(etag string) string {
	s := strings.TrimSpace(etag)
	s = strings.TrimPrefix(s, "W/")
	if len(s) >= 2 && s[0] == '"' && s[len(s)-1] == '"' {
		s = s[1 : len(s)-1]
	}
	return s
}

// CompareSequencers compares two S3 sequencer values for the same key and
// returns -1, 0 or +1 as a is earlier than, equal to or later than b. S3
// sequencers are hexadecimal strings of varying length; per the S3
// documentation the shorter one is right-padded with zeros before a lexical
// comparison. Comparison is case-insensitive. An empty sequencer is earlier
// than any non-empty one.
func CompareSequencers(a, b string) int {
	a, b = strings.ToUpper(a), strings.ToUpper(b)
	switch {
	case a == b:
		return 0
	case a == "":
		return -1
	case b == "":
		return 1
	}
	for len(a) < len(b) {
		a += "0"
	}
	for len(b) < len(a) {
		b += "0"
	}
	return strings.Compare(a, b)
}

// malformed builds an error wrapping ErrMalformed that names the JSON path.
func malformed(path, format string, args ...any) error {
	msg := fmt.Sprintf(format, args...)
	if path == "" {
		return fmt.Errorf("%w: %s", ErrMalformed, msg)
	}
	return fmt.Errorf("%w: %s: %s", ErrMalformed, path, msg)
}
