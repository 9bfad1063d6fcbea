package events

import (
	"bytes"
	"encoding/json"
	"errors"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata/golden")

// goldenResult is what a golden file records for one fixture.
type goldenResult struct {
	Notifications []goldenNotification `json:"notifications"`
	Error         string               `json:"error,omitempty"`
}

// goldenNotification is Notification with a readable Kind.
type goldenNotification struct {
	Kind      string    `json:"kind"`
	Source    Source    `json:"source"`
	Bucket    string    `json:"bucket"`
	Key       string    `json:"key"`
	Size      int64     `json:"size"`
	ETag      string    `json:"etag"`
	VersionID string    `json:"versionId,omitempty"`
	Sequencer string    `json:"sequencer,omitempty"`
	EventTime time.Time `json:"eventTime"`
	EventName string    `json:"eventName"`
}

func render(t *testing.T, ns []Notification, err error) []byte {
	t.Helper()
	res := goldenResult{Notifications: []goldenNotification{}}
	for _, n := range ns {
		res.Notifications = append(res.Notifications, goldenNotification{
			Kind: n.Kind.String(), Source: n.Source, Bucket: n.Bucket, Key: n.Key, Size: n.Size,
			ETag: n.ETag, VersionID: n.VersionID, Sequencer: n.Sequencer, EventTime: n.EventTime, EventName: n.EventName,
		})
	}
	if err != nil {
		res.Error = err.Error()
	}
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	if err := enc.Encode(res); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// TestParseGolden parses every fixture in testdata and compares the result
// with testdata/golden/<fixture>.golden. Fixtures named bad_* must fail with
// ErrMalformed; all others must succeed.
func TestParseGolden(t *testing.T) {
	fixtures, err := filepath.Glob(filepath.Join("testdata", "*.json"))
	if err != nil {
		t.Fatal(err)
	}
	if len(fixtures) < 20 {
		t.Fatalf("found %d fixtures, want at least 20", len(fixtures))
	}
	for _, path := range fixtures {
		name := strings.TrimSuffix(filepath.Base(path), ".json")
		t.Run(name, func(t *testing.T) {
			body, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			ns, perr := Parse(body)
			bad := strings.HasPrefix(name, "bad_")
			switch {
			case bad && perr == nil:
				t.Fatalf("Parse(%s) succeeded, want ErrMalformed", name)
			case bad && !errors.Is(perr, ErrMalformed):
				t.Fatalf("Parse(%s) error %v does not wrap ErrMalformed", name, perr)
			case !bad && perr != nil:
				t.Fatalf("Parse(%s): %v", name, perr)
			}
			got := render(t, ns, perr)
			goldenPath := filepath.Join("testdata", "golden", name+".golden")
			if *update {
				if err := os.WriteFile(goldenPath, got, 0o644); err != nil {
					t.Fatal(err)
				}
				return
			}
			want, err := os.ReadFile(goldenPath)
			if err != nil {
				t.Fatalf("%v (run go test -run TestParseGolden -update to create it)", err)
			}
			if !bytes.Equal(got, want) {
				t.Errorf("Parse(%s) mismatch\n got: %s\nwant: %s", name, got, want)
			}
		})
	}
}

func mustRead(t *testing.T, name string) []byte {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// TestParseFields checks the decoded fields that matter most, independently
// of the golden files.
func TestParseFields(t *testing.T) {
	type want struct {
		kind   Kind
		source Source
		bucket string
		key    string
		size   int64
		etag   string
		seq    string
		name   string
		time   string
	}
	tests := []struct {
		fixture string
		want    []want
	}{
		{"s3_put.json", []want{{Created, SourceS3, "tributary-orders-landing", "incoming/orders/2024/06/03/orders-0001.json", 1048576, "d41d8cd98f00b204e9800998ecf8427e", "00665D8F37A1B2C3D4", "ObjectCreated:Put", "2024-06-03T09:41:27.512Z"}}},
		{"s3_multipart.json", []want{{Created, SourceS3, "tributary-clicks-landing", "raw/clicks/dt=2024-06-03/part-00000-7f3c.snappy.parquet", 198524144, "4af981f98d22a0b9979da24b259e5e42-12", "00665D94330005924200", "ObjectCreated:CompleteMultipartUpload", "2024-06-03T10:02:11.004Z"}}},
		{"s3_copy.json", []want{{Created, SourceS3, "tributary-orders-landing", "incoming/orders/replayed/orders-0001.json", 2048, "0cc175b9c0f1b6a831c399e269772661", "00665E58B1D3E4F5A6", "ObjectCreated:Copy", "2024-06-04T00:00:01Z"}}},
		{"s3_post.json", []want{{Created, SourceS3, "tributary-uploads", "forms/upload-2024-06-04T12:30:00Z.csv", 77, "900150983cd24fb0d6963f7d28e17f72", "00665F0A8C2B1A0908", "ObjectCreated:Post", "2024-06-04T12:30:00.25Z"}}},
		{"s3_test_event.json", nil},
		{"sns_s3_test_event.json", nil},
		{"s3_removed.json", []want{
			{Removed, SourceS3, "tributary-orders-landing", "incoming/orders/2024/06/03/orders-0001.json", 0, "", "006660198A1B2C3D4E", "ObjectRemoved:Delete", "2024-06-05T08:00:00Z"},
			{Removed, SourceS3, "tributary-orders-landing", "incoming/orders/2024/06/03/orders-0002.json", 0, "", "006660198C1B2C3D4E", "ObjectRemoved:DeleteMarkerCreated", "2024-06-05T08:00:02Z"},
		}},
		{"s3_folder.json", []want{{Folder, SourceS3, "tributary-orders-landing", "incoming/orders/New folder/", 0, "d41d8cd98f00b204e9800998ecf8427e", "0066602DE4A1B2C3D4", "ObjectCreated:Put", "2024-06-05T09:15:00Z"}}},
		{"s3_keys_weird.json", []want{
			{Created, SourceS3, "tributary-weird", "in/my file 2024.csv", 10, "e1", "00666188A0000000A1", "ObjectCreated:Put", "2024-06-06T10:00:00Z"},
			{Created, SourceS3, "tributary-weird", "in/c++ notes + more.json", 11, "e2", "00666188A1000000A2", "ObjectCreated:Put", "2024-06-06T10:00:01Z"},
			{Created, SourceS3, "tributary-weird", "in/日本語/café 📄.json", 12, "e3", "00666188A2000000A3", "ObjectCreated:Put", "2024-06-06T10:00:02Z"},
			{Created, SourceS3, "tributary-weird", "in/region=eu/100% done?&more%23.json", 13, "e4", "00666188A3000000A4", "ObjectCreated:Put", "2024-06-06T10:00:03Z"},
		}},
		{"sns_s3_put.json", []want{{Created, SourceSNS, "tributary-orders-landing", "incoming/orders/2024/06/03/orders (copy 1).json", 1048576, "d41d8cd98f00b204e9800998ecf8427e", "00665D8F37A1B2C3D4", "ObjectCreated:Put", "2024-06-03T09:41:27.512Z"}}},
		// Captured from an emulator (moto) that escapes '/' too, unlike AWS.
		{"moto_s3_put.json", []want{{Created, SourceS3, "tributary-demo-source", "incoming/my file+1 ü.json", 3, "764efa883dda1e11db47671c4a3bbd9e", "", "ObjectCreated:Put", "2026-11-29T13:57:21.458Z"}}},
		{"moto_s3_test_event.json", nil},
		{"eventbridge_created.json", []want{{Created, SourceEventBridge, "tributary-events-eb", "landing/2024/06/07/batch 7 + extra 100%.json", 5120, "b1946ac92492d2347c6235b4d2611184", "617f08299329d189", "Object Created:PutObject", "2024-06-07T14:22:05Z"}}},
		{"sns_eventbridge_created.json", []want{{Created, SourceEventBridge, "tributary-events-eb", "landing/2024/06/07/batch 7 + extra 100%.json", 5120, "b1946ac92492d2347c6235b4d2611184", "617f08299329d189", "Object Created:PutObject", "2024-06-07T14:22:05Z"}}},
		{"eventbridge_created_multipart.json", []want{{Created, SourceEventBridge, "tributary-events-eb", "landing/big/日本語-export.parquet", 198524144, "4af981f98d22a0b9979da24b259e5e42-12", "0064D3901D00059242", "Object Created:CompleteMultipartUpload", "2024-06-07T14:22:05Z"}}},
		{"eventbridge_deleted.json", []want{{Removed, SourceEventBridge, "tributary-events-eb", "landing/2024/06/07/batch 7 + extra 100%.json", 0, "b1946ac92492d2347c6235b4d2611184", "617f0837b476e463", "Object Deleted:DeleteObject", "2024-06-08T01:00:00Z"}}},
		{"eventbridge_restore_completed.json", []want{{Other, SourceEventBridge, "tributary-events-eb", "archive/2023/old.json", 5, "b1946ac92492d2347c6235b4d2611184", "", "Object Restore Completed", "2024-06-07T14:22:05Z"}}},
	}
	for _, tc := range tests {
		t.Run(tc.fixture, func(t *testing.T) {
			ns, err := Parse(mustRead(t, tc.fixture))
			if err != nil {
				t.Fatalf("Parse: %v", err)
			}
			if len(ns) != len(tc.want) {
				t.Fatalf("got %d notifications, want %d: %+v", len(ns), len(tc.want), ns)
			}
			for i, w := range tc.want {
				n := ns[i]
				wt, err := time.Parse(time.RFC3339Nano, w.time)
				if err != nil {
					t.Fatal(err)
				}
				if n.Kind != w.kind || n.Source != w.source || n.Bucket != w.bucket || n.Key != w.key ||
					n.Size != w.size || n.ETag != w.etag || n.Sequencer != w.seq || n.EventName != w.name || !n.EventTime.Equal(wt) {
					t.Errorf("notification %d:\n got %+v\nwant %+v", i, n, w)
				}
			}
		})
	}
}

// TestParseErrors checks that malformed bodies fail with ErrMalformed and
// that the message names the JSON path at fault.
func TestParseErrors(t *testing.T) {
	put := string(mustRead(t, "s3_put.json"))
	tests := []struct {
		name     string
		body     string
		wantPath string
	}{
		{"empty", "", "empty message body"},
		{"whitespace", " \n\t", "empty message body"},
		{"null", "null", "null instead of a JSON object"},
		{"array", `[1,2]`, "invalid JSON object"},
		{"trailing garbage", `{"Records":[]} x`, "invalid JSON object"},
		{"unknown shape", `{"hello":"world"}`, "not an S3 event notification"},
		{"empty records", `{"Records":[]}`, "Records: empty array"},
		{"records not array", `{"Records":{}}`, "Records: not an array"},
		{"record not object", `{"Records":[42]}`, "Records[0]: invalid JSON object"},
		{"missing eventName", `{"Records":[{"eventTime":"2024-01-01T00:00:00Z","s3":{"bucket":{"name":"b"},"object":{"key":"k","size":1}}}]}`, "Records[0].eventName: missing"},
		{"missing eventTime", `{"Records":[{"eventName":"ObjectCreated:Put","s3":{"bucket":{"name":"b"},"object":{"key":"k","size":1}}}]}`, "Records[0].eventTime: missing"},
		{"missing s3", `{"Records":[{"eventName":"ObjectCreated:Put","eventTime":"2024-01-01T00:00:00Z"}]}`, "Records[0].s3: missing"},
		{"missing bucket name", `{"Records":[{"eventName":"ObjectCreated:Put","eventTime":"2024-01-01T00:00:00Z","s3":{"bucket":{},"object":{"key":"k","size":1}}}]}`, "Records[0].s3.bucket.name: missing"},
		{"null key", `{"Records":[{"eventName":"ObjectCreated:Put","eventTime":"2024-01-01T00:00:00Z","s3":{"bucket":{"name":"b"},"object":{"key":null,"size":1}}}]}`, "Records[0].s3.object.key: missing"},
		{"key not string", `{"Records":[{"eventName":"ObjectCreated:Put","eventTime":"2024-01-01T00:00:00Z","s3":{"bucket":{"name":"b"},"object":{"key":7,"size":1}}}]}`, "Records[0].s3.object.key: not a string"},
		{"key decodes to invalid utf8", `{"Records":[{"eventName":"ObjectCreated:Put","eventTime":"2024-01-01T00:00:00Z","s3":{"bucket":{"name":"b"},"object":{"key":"a%FF","size":1}}}]}`, "Records[0].s3.object.key: key \"a%FF\" decodes to invalid UTF-8"},
		{"created without size", `{"Records":[{"eventName":"ObjectCreated:Put","eventTime":"2024-01-01T00:00:00Z","s3":{"bucket":{"name":"b"},"object":{"key":"k"}}}]}`, "Records[0].s3.object.size: missing"},
		{"negative size", `{"Records":[{"eventName":"ObjectCreated:Put","eventTime":"2024-01-01T00:00:00Z","s3":{"bucket":{"name":"b"},"object":{"key":"k","size":-1}}}]}`, "Records[0].s3.object.size: negative"},
		{"second record bad", `{"Records":[{"eventName":"ObjectCreated:Put","eventTime":"2024-01-01T00:00:00Z","s3":{"bucket":{"name":"b"},"object":{"key":"k","size":1}}},{"eventName":"ObjectCreated:Put"}]}`, "Records[1].eventTime: missing"},
		{"unknown Event", `{"Event":"s3:SomethingElse"}`, "Event: unknown S3 event"},
		{"sns message not string", `{"Type":"Notification","Message":{"Records":[]}}`, "Message: not a string"},
		{"sns message bad inner", `{"Type":"Notification","Message":"{\"Records\":[{\"eventName\":\"ObjectCreated:Put\"}]}"}`, "Message.Records[0].eventTime: missing"},
		{"sns nested sns", `{"Type":"Notification","Message":"{\"Type\":\"Notification\",\"Message\":\"{}\"}"}`, "Message: SNS envelope nested"},
		{"sns wrong type", `{"Type":"UnsubscribeConfirmation","Message":"bye"}`, "Type: SNS message type \"UnsubscribeConfirmation\""},
		{"eventbridge missing detail", `{"source":"aws.s3","detail-type":"Object Created","time":"2024-01-01T00:00:00Z"}`, "detail: missing"},
		{"eventbridge missing key", `{"source":"aws.s3","detail-type":"Object Created","time":"2024-01-01T00:00:00Z","detail":{"bucket":{"name":"b"},"object":{"size":1}}}`, "detail.object.key: missing"},
		{"eventbridge missing size", `{"source":"aws.s3","detail-type":"Object Created","time":"2024-01-01T00:00:00Z","detail":{"bucket":{"name":"b"},"object":{"key":"k"}}}`, "detail.object.size: missing"},
		{"eventbridge bad time", `{"source":"aws.s3","detail-type":"Object Created","time":"now","detail":{"bucket":{"name":"b"},"object":{"key":"k","size":1}}}`, "time: invalid timestamp"},
		{"eventbridge wrong source", `{"source":"aws.ec2","detail-type":"EC2 Instance State-change Notification","time":"2024-01-01T00:00:00Z","detail":{}}`, "source: EventBridge source \"aws.ec2\""},
		{"truncated put", put[:len(put)/2], "invalid JSON object"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			ns, err := Parse([]byte(tc.body))
			if err == nil {
				t.Fatalf("Parse succeeded with %+v, want error", ns)
			}
			if !errors.Is(err, ErrMalformed) {
				t.Fatalf("error %v does not wrap ErrMalformed", err)
			}
			if !strings.Contains(err.Error(), tc.wantPath) {
				t.Errorf("error %q does not contain %q", err, tc.wantPath)
			}
			if ns != nil {
				t.Errorf("got notifications %+v alongside the error", ns)
			}
		})
	}
}

// TestParseVariants covers record shapes other producers emit.
func TestParseVariants(t *testing.T) {
	tests := []struct {
		name     string
		body     string
		wantKind Kind
		wantName string
		wantKey  string
	}{
		{"minio s3: prefix", `{"EventName":"s3:ObjectCreated:Put","Key":"b/a b","Records":[{"eventName":"s3:ObjectCreated:Put","eventTime":"2024-01-01T00:00:00.000Z","s3":{"bucket":{"name":"b"},"object":{"key":"a+b","size":3}}}]}`, Created, "ObjectCreated:Put", "a b"},
		{"lifecycle expiration", `{"Records":[{"eventName":"LifecycleExpiration:Delete","eventTime":"2024-01-01T00:00:00Z","s3":{"bucket":{"name":"b"},"object":{"key":"old.json"}}}]}`, Removed, "LifecycleExpiration:Delete", "old.json"},
		{"tagging is other", `{"Records":[{"eventName":"ObjectTagging:Put","eventTime":"2024-01-01T00:00:00Z","s3":{"bucket":{"name":"b"},"object":{"key":"x.json","eTag":"e"}}}]}`, Other, "ObjectTagging:Put", "x.json"},
		{"removed folder stays removed", `{"Records":[{"eventName":"ObjectRemoved:Delete","eventTime":"2024-01-01T00:00:00Z","s3":{"bucket":{"name":"b"},"object":{"key":"dir%2F"}}}]}`, Removed, "ObjectRemoved:Delete", "dir/"},
		{"size as quoted number", `{"Records":[{"eventName":"ObjectCreated:Put","eventTime":"2024-01-01T00:00:00Z","s3":{"bucket":{"name":"b"},"object":{"key":"k","size":"12"}}}]}`, Created, "ObjectCreated:Put", "k"},
		{"eventbridge folder", `{"source":"aws.s3","detail-type":"Object Created","time":"2024-01-01T00:00:00Z","detail":{"bucket":{"name":"b"},"object":{"key":"dir/","size":0}}}`, Folder, "Object Created", "dir/"},
		{"eventbridge keeps + and %", `{"source":"aws.s3","detail-type":"Object Created","time":"2024-01-01T00:00:00Z","detail":{"bucket":{"name":"b"},"object":{"key":"a+b%2Bc","size":1}}}`, Created, "Object Created", "a+b%2Bc"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			ns, err := Parse([]byte(tc.body))
			if err != nil {
				t.Fatalf("Parse: %v", err)
			}
			if len(ns) != 1 {
				t.Fatalf("got %d notifications, want 1", len(ns))
			}
			if n := ns[0]; n.Kind != tc.wantKind || n.EventName != tc.wantName || n.Key != tc.wantKey {
				t.Errorf("got kind %v name %q key %q, want %v %q %q", n.Kind, n.EventName, n.Key, tc.wantKind, tc.wantName, tc.wantKey)
			}
		})
	}
}

func TestNormalizeETag(t *testing.T) {
	tests := []struct{ in, want string }{
		{`"d41d8cd98f00b204e9800998ecf8427e"`, "d41d8cd98f00b204e9800998ecf8427e"},
		{"d41d8cd98f00b204e9800998ecf8427e", "d41d8cd98f00b204e9800998ecf8427e"},
		{` "abc-12" `, "abc-12"},
		{`W/"abc"`, "abc"},
		{`"`, `"`},
		{`""`, ""},
		{"", ""},
		{`"abc`, `"abc`},
	}
	for _, tc := range tests {
		if got := NormalizeETag(tc.in); got != tc.want {
			t.Errorf("NormalizeETag(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}

func TestCompareSequencers(t *testing.T) {
	tests := []struct {
		a, b string
		want int
	}{
		{"0055AED6DCD90281E5", "0055AED6DCD90281E5", 0},
		{"0055AED6DCD90281E5", "0055AED6DCD90281E6", -1},
		{"0055AED6DCD90281E6", "0055AED6DCD90281E5", 1},
		{"0055AED6DCD90281E5", "0055AED6DCD90281E500", 0}, // padding
		{"0055AED6DCD90281E5", "0055AED6DCD90281E501", -1},
		{"0055aed6dcd90281e5", "0055AED6DCD90281E5", 0},
		{"", "00", -1},
		{"00", "", 1},
		{"", "", 0},
		{"617f08299329d189", "617f0837b476e463", -1},
	}
	for _, tc := range tests {
		if got := CompareSequencers(tc.a, tc.b); got != tc.want {
			t.Errorf("CompareSequencers(%q, %q) = %d, want %d", tc.a, tc.b, got, tc.want)
		}
	}
}

func TestKindString(t *testing.T) {
	for k, want := range map[Kind]string{Created: "Created", Removed: "Removed", Folder: "Folder", Other: "Other", Kind(0): "Kind(0)"} {
		if got := k.String(); got != want {
			t.Errorf("Kind(%d).String() = %q, want %q", int(k), got, want)
		}
	}
}

// FuzzParse checks that Parse never panics, that every error wraps
// ErrMalformed, and that every notification it returns is usable.
func FuzzParse(f *testing.F) {
	fixtures, err := filepath.Glob(filepath.Join("testdata", "*.json"))
	if err != nil {
		f.Fatal(err)
	}
	for _, path := range fixtures {
		b, err := os.ReadFile(path)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b)
	}
	f.Add([]byte(`{"Type":"Notification","Message":"{\"Event\":\"s3:TestEvent\"}"}`))
	f.Add([]byte(`{"Records":[{"eventName":"ObjectCreated:Put","eventTime":"2024-01-01T00:00:00Z","s3":{"bucket":{"name":"b"},"object":{"key":"%2","size":1}}}]}`))
	f.Fuzz(func(t *testing.T, body []byte) {
		ns, err := Parse(body)
		if err != nil {
			if !errors.Is(err, ErrMalformed) {
				t.Fatalf("error %v does not wrap ErrMalformed", err)
			}
			if ns != nil {
				t.Fatalf("notifications %+v returned with error", ns)
			}
			return
		}
		for i, n := range ns {
			if n.Bucket == "" || n.Key == "" {
				t.Fatalf("notification %d has empty bucket or key: %+v", i, n)
			}
			if n.Kind < Created || n.Kind > Other {
				t.Fatalf("notification %d has invalid kind %d", i, n.Kind)
			}
			if n.Size < 0 {
				t.Fatalf("notification %d has negative size", i)
			}
			if n.Kind == Created && strings.HasSuffix(n.Key, "/") {
				t.Fatalf("notification %d: folder key %q has kind Created", i, n.Key)
			}
			if n.EventTime.IsZero() || n.EventName == "" {
				t.Fatalf("notification %d lacks time or name: %+v", i, n)
			}
		}
		again, err := Parse(body)
		if err != nil || len(again) != len(ns) {
			t.Fatalf("Parse is not deterministic: %v, %d vs %d", err, len(again), len(ns))
		}
	})
}
