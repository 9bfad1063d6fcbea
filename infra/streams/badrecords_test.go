package streams

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/s3"

	"github.com/tributary-io/tributary/infra/awsclient"
	"github.com/tributary-io/tributary/infra/awstest"
)

func TestMain(m *testing.M) { awstest.Main(m) }

// TestBadRecordsPathOnS3: an s3:// badRecordsPath receives the exception
// files through the S3 adapter (the replay of a batch rewriting the same
// object is tested in core/ingest); a second run adds nothing.
func TestBadRecordsPathOnS3(t *testing.T) {
	ctx := context.Background()
	cfg := awstest.Config(t, awstest.Endpoint(t))
	client := awsclient.NewS3(cfg)
	bucket := fmt.Sprintf("bad-records-%d", time.Now().UnixNano()%1e9)
	if _, err := client.CreateBucket(ctx, &s3.CreateBucketInput{Bucket: &bucket}); err != nil {
		t.Fatalf("CreateBucket: %v", err)
	}
	dir := t.TempDir()
	write(t, filepath.Join(dir, "in", "a.json"), `{"x":"1"}`+"\n"+`{"x":`+"\n", time.Time{})
	opts := parse(t, dir, "s1", map[string]string{"badRecordsPath": "s3://" + bucket + "/bad/"})
	run := func() {
		s, err := Env{AWS: &cfg}.Open(ctx, opts)
		if err != nil {
			t.Fatal(err)
		}
		defer s.Close()
		if _, err := s.Discover(ctx); err != nil {
			t.Fatal(err)
		}
		if _, err := s.Engine.RunAvailableNow(ctx, nil); err != nil {
			t.Fatal(err)
		}
	}
	run()
	run() // nothing new: no second exception file
	out, err := client.ListObjectsV2(ctx, &s3.ListObjectsV2Input{Bucket: &bucket, Prefix: aws.String("bad/")})
	if err != nil {
		t.Fatal(err)
	}
	if len(out.Contents) != 1 || !regexp.MustCompile(`^bad/\d{8}T\d{6}/bad_records/batch-0\.json$`).MatchString(aws.ToString(out.Contents[0].Key)) {
		var keys []string
		for _, o := range out.Contents {
			keys = append(keys, aws.ToString(o.Key))
		}
		t.Fatalf("bucket holds %v, want one bad_records file of batch 0", keys)
	}
	obj, err := client.GetObject(ctx, &s3.GetObjectInput{Bucket: &bucket, Key: out.Contents[0].Key})
	if err != nil {
		t.Fatal(err)
	}
	data, _ := io.ReadAll(obj.Body)
	obj.Body.Close()
	var rec map[string]string
	if err := json.Unmarshal(data, &rec); err != nil || rec["record"] != `{"x":` || !strings.HasSuffix(rec["path"], "a.json") {
		t.Fatalf("exception file %q (%v)", data, err)
	}
}
