package events

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/url"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"
)

// s3TestEvent is the value of "Event" in the message S3 sends when a
// notification configuration is created or changed.
const s3TestEvent = "s3:TestEvent"

// Parse decodes the body of one SQS message from the events queue into the
// object notifications it carries. It understands:
//   - an S3 event notification ({"Records":[...]}); keys are URL-decoded;
//   - the S3 test event ({"Event":"s3:TestEvent",...}): no notifications, no error;
//   - either of the above, or an EventBridge event, inside an SNS envelope
//     ({"Type":"Notification","Message":"<JSON string>"}), as SQS receives it
//     when raw message delivery is off;
//   - an EventBridge event from source aws.s3 ("Object Created", "Object
//     Deleted"; other detail-types come back as Kind Other); keys are used as
//     they are.
//
// Every notification is returned, whatever its Kind; the caller ingests
// Created and logs the rest. Any error wraps ErrMalformed and names the JSON
// path at fault; a body with one bad record fails as a whole, so that the
// message goes to the dead-letter queue intact.
func Parse(body []byte) ([]Notification, error) {
	return parse(body, "", 0)
}

// parse decodes one JSON document; path prefixes error paths, depth counts
// SNS envelopes (at most one).
func parse(body []byte, path string, depth int) ([]Notification, error) {
	if len(bytes.TrimSpace(body)) == 0 {
		return nil, malformed(path, "empty message body")
	}
	top, err := decodeObject(path, body)
	if err != nil {
		return nil, err
	}
	switch {
	case top.has("Records"):
		src := SourceS3
		if depth > 0 {
			src = SourceSNS
		}
		return parseS3(top, src)
	case top.has("Event"):
		ev, _, err := top.str("Event", true)
		if err != nil {
			return nil, err
		}
		if ev != s3TestEvent {
			return nil, malformed(top.sub("Event"), "unknown S3 event %q (want %q or a Records array)", ev, s3TestEvent)
		}
		return nil, nil
	case top.has("detail-type") || top.has("detail"):
		return parseEventBridge(top)
	case top.has("Type") && top.has("Message"):
		if depth > 0 {
			return nil, malformed(path, "SNS envelope nested inside an SNS envelope")
		}
		return parseSNS(top, depth)
	default:
		return nil, malformed(path, "not an S3 event notification, SNS notification or EventBridge event (no Records, Event, detail-type or Type/Message field)")
	}
}

// parseSNS unwraps an SNS envelope and parses its Message.
func parseSNS(top object, depth int) ([]Notification, error) {
	typ, _, err := top.str("Type", true)
	if err != nil {
		return nil, err
	}
	if typ != "Notification" {
		return nil, malformed(top.sub("Type"), "SNS message type %q is not Notification", typ)
	}
	msg, _, err := top.str("Message", true)
	if err != nil {
		return nil, err
	}
	return parse([]byte(msg), top.sub("Message"), depth+1)
}

// parseS3 decodes the Records array of an S3 event notification.
func parseS3(top object, src Source) ([]Notification, error) {
	records, err := top.array("Records")
	if err != nil {
		return nil, err
	}
	if len(records) == 0 {
		return nil, malformed(top.sub("Records"), "empty array")
	}
	out := make([]Notification, 0, len(records))
	for i, raw := range records {
		rec, err := decodeObject(fmt.Sprintf("%s[%d]", top.sub("Records"), i), raw)
		if err != nil {
			return nil, err
		}
		n, err := parseS3Record(rec, src)
		if err != nil {
			return nil, err
		}
		out = append(out, n)
	}
	return out, nil
}

// parseS3Record decodes one element of Records.
func parseS3Record(rec object, src Source) (Notification, error) {
	n := Notification{Source: src}
	name, _, err := rec.str("eventName", true)
	if err != nil {
		return n, err
	}
	n.EventName = strings.TrimPrefix(name, "s3:")
	n.Kind = s3Kind(n.EventName)
	ts, _, err := rec.str("eventTime", true)
	if err != nil {
		return n, err
	}
	if n.EventTime, err = parseTime(ts); err != nil {
		return n, malformed(rec.sub("eventTime"), "%v", err)
	}
	s3, err := rec.obj("s3")
	if err != nil {
		return n, err
	}
	bucket, err := s3.obj("bucket")
	if err != nil {
		return n, err
	}
	if n.Bucket, _, err = bucket.str("name", true); err != nil {
		return n, err
	}
	o, err := s3.obj("object")
	if err != nil {
		return n, err
	}
	rawKey, _, err := o.str("key", true)
	if err != nil {
		return n, err
	}
	if n.Key, err = decodeKey(rawKey); err != nil {
		return n, malformed(o.sub("key"), "%v", err)
	}
	if err := fillObject(&n, o, "eTag", "versionId"); err != nil {
		return n, err
	}
	return n, nil
}

// s3Kind maps an S3 event name (without "s3:") to a Kind.
func s3Kind(name string) Kind {
	switch {
	case strings.HasPrefix(name, "ObjectCreated:"):
		return Created
	case strings.HasPrefix(name, "ObjectRemoved:"), strings.HasPrefix(name, "LifecycleExpiration:"):
		return Removed
	default:
		return Other
	}
}

// parseEventBridge decodes an EventBridge event from source aws.s3.
func parseEventBridge(top object) ([]Notification, error) {
	n := Notification{Source: SourceEventBridge}
	source, _, err := top.str("source", true)
	if err != nil {
		return nil, err
	}
	if source != "aws.s3" {
		return nil, malformed(top.sub("source"), "EventBridge source %q is not aws.s3", source)
	}
	dt, _, err := top.str("detail-type", true)
	if err != nil {
		return nil, err
	}
	switch dt {
	case "Object Created":
		n.Kind = Created
	case "Object Deleted":
		n.Kind = Removed
	default:
		n.Kind = Other
	}
	ts, _, err := top.str("time", true)
	if err != nil {
		return nil, err
	}
	if n.EventTime, err = parseTime(ts); err != nil {
		return nil, malformed(top.sub("time"), "%v", err)
	}
	detail, err := top.obj("detail")
	if err != nil {
		return nil, err
	}
	n.EventName = dt
	reason, _, err := detail.str("reason", false)
	if err != nil {
		return nil, err
	}
	if reason != "" {
		n.EventName = dt + ":" + reason
	}
	bucket, err := detail.obj("bucket")
	if err != nil {
		return nil, err
	}
	if n.Bucket, _, err = bucket.str("name", true); err != nil {
		return nil, err
	}
	o, err := detail.obj("object")
	if err != nil {
		return nil, err
	}
	// EventBridge sends the key as it is: no URL decoding.
	if n.Key, _, err = o.str("key", true); err != nil {
		return nil, err
	}
	if n.Key == "" {
		return nil, malformed(o.sub("key"), "empty key")
	}
	if err := fillObject(&n, o, "etag", "version-id"); err != nil {
		return nil, err
	}
	return []Notification{n}, nil
}

// fillObject reads size, ETag, version id and sequencer from an object
// description, checks that a Created notification has a size, and turns a
// created folder marker into Kind Folder.
func fillObject(n *Notification, o object, etagField, versionField string) error {
	size, ok, err := o.int64("size")
	if err != nil {
		return err
	}
	if !ok && n.Kind == Created {
		return malformed(o.sub("size"), "missing (required for an object-created event)")
	}
	n.Size = size
	etag, _, err := o.str(etagField, false)
	if err != nil {
		return err
	}
	n.ETag = NormalizeETag(etag)
	if n.VersionID, _, err = o.str(versionField, false); err != nil {
		return err
	}
	if n.Sequencer, _, err = o.str("sequencer", false); err != nil {
		return err
	}
	if n.Kind == Created && strings.HasSuffix(n.Key, "/") {
		n.Kind = Folder
	}
	return nil
}

// decodeKey URL-decodes a key from an S3 event notification ('+' is a space)
// and checks that the result is a usable key.
func decodeKey(raw string) (string, error) {
	key, err := url.QueryUnescape(raw)
	if err != nil {
		return "", fmt.Errorf("cannot URL-decode key %q: %w", raw, err)
	}
	if key == "" {
		return "", fmt.Errorf("empty key")
	}
	if !utf8.ValidString(key) {
		return "", fmt.Errorf("key %q decodes to invalid UTF-8", raw)
	}
	return key, nil
}

// parseTime parses an ISO-8601 timestamp as S3 and EventBridge write it.
func parseTime(s string) (time.Time, error) {
	t, err := time.Parse(time.RFC3339Nano, s)
	if err != nil {
		return time.Time{}, fmt.Errorf("invalid timestamp %q: want RFC 3339", s)
	}
	return t.UTC(), nil
}

// object is a decoded JSON object whose fields are looked up by exact name
// (encoding/json's struct decoding would match names case-insensitively), and
// which knows its own path for error messages.
type object struct {
	path   string
	fields map[string]json.RawMessage
}

// decodeObject decodes raw as a JSON object.
func decodeObject(path string, raw []byte) (object, error) {
	var fields map[string]json.RawMessage
	if err := json.Unmarshal(raw, &fields); err != nil {
		return object{}, malformed(path, "invalid JSON object: %v", err)
	}
	if fields == nil {
		return object{}, malformed(path, "null instead of a JSON object")
	}
	return object{path: path, fields: fields}, nil
}

// sub returns the path of field name.
func (o object) sub(name string) string {
	if o.path == "" {
		return name
	}
	return o.path + "." + name
}

// has reports whether the field is present (even if null).
func (o object) has(name string) bool {
	_, ok := o.fields[name]
	return ok
}

// value returns the raw field, treating JSON null as absent.
func (o object) value(name string) (json.RawMessage, bool) {
	raw, ok := o.fields[name]
	if !ok || bytes.Equal(bytes.TrimSpace(raw), []byte("null")) {
		return nil, false
	}
	return raw, true
}

// str returns a string field; a missing required field is an error.
func (o object) str(name string, required bool) (string, bool, error) {
	raw, ok := o.value(name)
	if !ok {
		if required {
			return "", false, malformed(o.sub(name), "missing")
		}
		return "", false, nil
	}
	var s string
	if err := json.Unmarshal(raw, &s); err != nil {
		return "", false, malformed(o.sub(name), "not a string")
	}
	if required && s == "" {
		return "", false, malformed(o.sub(name), "empty")
	}
	return s, true, nil
}

// obj returns a required object field.
func (o object) obj(name string) (object, error) {
	raw, ok := o.value(name)
	if !ok {
		return object{}, malformed(o.sub(name), "missing")
	}
	return decodeObject(o.sub(name), raw)
}

// array returns a required array field.
func (o object) array(name string) ([]json.RawMessage, error) {
	raw, ok := o.value(name)
	if !ok {
		return nil, malformed(o.sub(name), "missing")
	}
	var items []json.RawMessage
	if err := json.Unmarshal(raw, &items); err != nil {
		return nil, malformed(o.sub(name), "not an array")
	}
	return items, nil
}

// int64 returns an optional non-negative integer field.
func (o object) int64(name string) (int64, bool, error) {
	raw, ok := o.value(name)
	if !ok {
		return 0, false, nil
	}
	var num json.Number
	if err := json.Unmarshal(raw, &num); err != nil {
		return 0, false, malformed(o.sub(name), "not a number")
	}
	v, err := strconv.ParseInt(num.String(), 10, 64)
	if err != nil {
		return 0, false, malformed(o.sub(name), "not an integer: %s", num)
	}
	if v < 0 {
		return 0, false, malformed(o.sub(name), "negative: %d", v)
	}
	return v, true, nil
}
