package s3store_test

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/s3"

	"github.com/tributary-io/tributary/core/objstore"
	"github.com/tributary-io/tributary/core/objstore/objstoretest"
	"github.com/tributary-io/tributary/infra/awstest"
	"github.com/tributary-io/tributary/infra/s3store"
)

func TestNewValidates(t *testing.T) {
	client := s3.New(s3.Options{Region: "us-east-1"})
	tests := []struct {
		name, bucket, prefix string
		wantPrefix           string
		wantErr              bool
	}{
		{"no prefix", "b", "", "", false},
		{"slashes trimmed", "b", "/a/b/", "a/b/", false},
		{"empty bucket", "", "x", "", true},
		{"bad prefix", "b", "a//b", "", true},
		{"dot segment", "b", "a/../b", "", true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			s, err := s3store.New(client, tc.bucket, tc.prefix)
			if (err != nil) != tc.wantErr {
				t.Fatalf("New(%q, %q) error = %v, want error %v", tc.bucket, tc.prefix, err, tc.wantErr)
			}
			if err == nil && s.Prefix() != tc.wantPrefix {
				t.Fatalf("Prefix() = %q, want %q", s.Prefix(), tc.wantPrefix)
			}
		})
	}
	if _, err := s3store.New(nil, "b", ""); err == nil {
		t.Fatal("New with a nil client succeeded")
	}
}

// TestRawKeysMatch checks that keys reach S3 unchanged: not double-encoded,
// not decoded, '+' not turned into a space, for Put and for Copy.
func TestRawKeysMatch(t *testing.T) {
	client := newClient(t)
	bucket := newBucket(t, client)
	s, err := s3store.New(client, bucket, "root")
	if err != nil {
		t.Fatal(err)
	}
	var want []string
	for _, key := range objstoretest.WeirdKeys() {
		if err := s.Put(t.Context(), key, strings.NewReader("v")); err != nil {
			t.Fatal(err)
		}
		if err := s.Copy(t.Context(), key, key+"+copy"); err != nil {
			t.Fatal(err)
		}
		want = append(want, "root/"+key, "root/"+key+"+copy")
	}
	slices.Sort(want)
	var got []string
	p := s3.NewListObjectsV2Paginator(client, &s3.ListObjectsV2Input{Bucket: &bucket})
	for p.HasMorePages() {
		page, err := p.NextPage(t.Context())
		if err != nil {
			t.Fatal(err)
		}
		for _, o := range page.Contents {
			got = append(got, aws.ToString(o.Key))
		}
	}
	if !slices.Equal(got, want) {
		t.Fatalf("raw S3 keys =\n %q\nwant\n %q", got, want)
	}
}

func TestMissingBucketIsNotNotFound(t *testing.T) {
	s, err := s3store.New(newClient(t), "no-such-bucket-tributary", "")
	if err != nil {
		t.Fatal(err)
	}
	_, err = s.Get(t.Context(), "k")
	if err == nil || errors.Is(err, objstore.ErrNotFound) {
		t.Fatalf("Get in a missing bucket = %v, want an error other than ErrNotFound", err)
	}
}

// streaming hides io.Seeker so the store must spool.
type streaming struct{ r io.Reader }

func (s streaming) Read(p []byte) (int, error) { return s.r.Read(p) }

func TestSpoolToFile(t *testing.T) {
	client := newClient(t)
	bucket := newBucket(t, client)
	spool := t.TempDir()
	s, err := s3store.New(client, bucket, "", s3store.WithSpoolThreshold(1024), s3store.WithSpoolDir(spool))
	if err != nil {
		t.Fatal(err)
	}
	data := bytes.Repeat([]byte("0123456789abcdef"), 10_000)
	tests := []struct {
		name    string
		r       io.Reader
		wantErr bool
	}{
		{"below threshold", streaming{bytes.NewReader(data[:1000])}, false},
		{"exactly threshold", streaming{bytes.NewReader(data[:1024])}, false},
		{"above threshold", streaming{bytes.NewReader(data)}, false},
		{"fails after spooling began", streaming{io.MultiReader(bytes.NewReader(data), iotestErr{})}, true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			key := strings.ReplaceAll(tc.name, " ", "-")
			err := s.Put(t.Context(), key, tc.r)
			if tc.wantErr {
				if !errors.Is(err, errReader) {
					t.Fatalf("Put = %v, want the reader's error", err)
				}
				if _, err := s.Head(t.Context(), key); !errors.Is(err, objstore.ErrNotFound) {
					t.Fatalf("Head after failed Put = %v", err)
				}
			} else {
				if err != nil {
					t.Fatal(err)
				}
				rc, err := s.Get(t.Context(), key)
				if err != nil {
					t.Fatal(err)
				}
				got, err := io.ReadAll(rc)
				rc.Close()
				if err != nil {
					t.Fatal(err)
				}
				if !bytes.HasPrefix(data, got) || len(got) == 0 {
					t.Fatalf("content mismatch: %d bytes", len(got))
				}
			}
			left, err := os.ReadDir(spool)
			if err != nil {
				t.Fatal(err)
			}
			if len(left) != 0 {
				t.Fatalf("spool files left behind: %v", left)
			}
		})
	}
}

var errReader = errors.New("reader broke")

type iotestErr struct{}

func (iotestErr) Read([]byte) (int, error) { return 0, errReader }

// TestConditionalConflict drives PutIfAbsent against a fake S3 that answers
// with scripted statuses, since emulators never return 409.
func TestConditionalConflict(t *testing.T) {
	const conflict = `<?xml version="1.0" encoding="UTF-8"?><Error><Code>ConditionalRequestConflict</Code><Message>A conflicting conditional operation is currently in progress against this resource.</Message></Error>`
	const precondition = `<?xml version="1.0" encoding="UTF-8"?><Error><Code>PreconditionFailed</Code><Message>At least one of the pre-conditions you specified did not hold</Message><Condition>If-None-Match</Condition></Error>`
	tests := []struct {
		name      string
		script    []int // status per request; the last one repeats
		wantErr   error // nil: success
		wantOther bool  // an error that is neither nil nor ErrExists
		wantCalls int
	}{
		{"ok", []int{200}, nil, false, 1},
		{"exists", []int{412}, objstore.ErrExists, false, 1},
		{"conflict then ok", []int{409, 409, 200}, nil, false, 3},
		{"conflict then exists", []int{409, 412}, objstore.ErrExists, false, 2},
		{"conflict persists", []int{409}, nil, true, 3},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var mu sync.Mutex
			calls := 0
			var badBody error
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				body, _ := io.ReadAll(r.Body)
				mu.Lock()
				i := min(calls, len(tc.script)-1)
				calls++
				if string(body) != "payload" || r.Header.Get("If-None-Match") != "*" {
					badBody = fmt.Errorf("request %d: body %q, If-None-Match %q", calls, body, r.Header.Get("If-None-Match"))
				}
				mu.Unlock()
				switch st := tc.script[i]; st {
				case 200:
					w.Header().Set("ETag", `"e"`)
				case 409:
					w.WriteHeader(st)
					io.WriteString(w, conflict)
				case 412:
					w.WriteHeader(st)
					io.WriteString(w, precondition)
				}
			}))
			defer srv.Close()
			client := s3.NewFromConfig(awstest.Config(t, srv.URL), func(o *s3.Options) {
				o.UsePathStyle = true
				o.RetryMaxAttempts = 1
			})
			s, err := s3store.New(client, "bucket", "p", s3store.WithConflictRetries(2))
			if err != nil {
				t.Fatal(err)
			}
			// A non-seekable body: the retry must resend the spooled copy.
			err = s.PutIfAbsent(t.Context(), "k", streaming{strings.NewReader("payload")})
			switch {
			case tc.wantOther:
				if err == nil || errors.Is(err, objstore.ErrExists) {
					t.Fatalf("PutIfAbsent = %v, want an error other than ErrExists", err)
				}
			case tc.wantErr == nil:
				if err != nil {
					t.Fatalf("PutIfAbsent = %v, want success", err)
				}
			case !errors.Is(err, tc.wantErr):
				t.Fatalf("PutIfAbsent = %v, want %v", err, tc.wantErr)
			}
			if calls != tc.wantCalls {
				t.Fatalf("server saw %d requests, want %d", calls, tc.wantCalls)
			}
			if badBody != nil {
				t.Fatal(badBody)
			}
		})
	}
}
