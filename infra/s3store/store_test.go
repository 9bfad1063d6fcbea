package s3store_test

import (
	"context"
	"fmt"
	"net/http"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/s3"

	"github.com/tributary-io/tributary/core/objstore"
	"github.com/tributary-io/tributary/core/objstore/objstoretest"
	"github.com/tributary-io/tributary/infra/awsclient"
	"github.com/tributary-io/tributary/infra/awstest"
	"github.com/tributary-io/tributary/infra/s3store"
)

func TestMain(m *testing.M) { awstest.Main(m) }

var bucketSeq atomic.Int64

// newClient returns an S3 client for the emulator.
func newClient(t *testing.T) *s3.Client {
	t.Helper()
	return awsclient.NewS3(awstest.Config(t, awstest.Endpoint(t)))
}

// newBucket creates a fresh bucket and deletes it (with its objects) after the test.
func newBucket(t *testing.T, client *s3.Client) string {
	t.Helper()
	bucket := fmt.Sprintf("s3store-%d-%d", bucketSeq.Add(1), time.Now().UnixNano()%1e9)
	if _, err := client.CreateBucket(t.Context(), &s3.CreateBucketInput{Bucket: &bucket}); err != nil {
		t.Fatalf("CreateBucket %s: %v", bucket, err)
	}
	t.Cleanup(func() {
		ctx := context.Background()
		p := s3.NewListObjectsV2Paginator(client, &s3.ListObjectsV2Input{Bucket: &bucket})
		for p.HasMorePages() {
			page, err := p.NextPage(ctx)
			if err != nil {
				t.Errorf("cleanup list %s: %v", bucket, err)
				return
			}
			for _, o := range page.Contents {
				if _, err := client.DeleteObject(ctx, &s3.DeleteObjectInput{Bucket: &bucket, Key: o.Key}); err != nil {
					t.Errorf("cleanup delete %s/%s: %v", bucket, aws.ToString(o.Key), err)
				}
			}
		}
		if _, err := client.DeleteBucket(ctx, &s3.DeleteBucketInput{Bucket: &bucket}); err != nil {
			t.Errorf("cleanup delete bucket %s: %v", bucket, err)
		}
	})
	return bucket
}

// isMoto reports whether the emulator is moto, whose If-None-Match check is
// not atomic with the write (see the package documentation).
func isMoto(t *testing.T) bool {
	resp, err := http.Get(awstest.Endpoint(t) + "/moto-api/")
	if err != nil {
		return false
	}
	resp.Body.Close()
	return resp.StatusCode == http.StatusOK
}

func putRaw(t *testing.T, client *s3.Client, bucket, key string) {
	t.Helper()
	if _, err := client.PutObject(t.Context(), &s3.PutObjectInput{Bucket: &bucket, Key: &key, Body: strings.NewReader("raw")}); err != nil {
		t.Fatalf("raw put %q: %v", key, err)
	}
}

func harness(rootPrefix string) func(t *testing.T) objstoretest.Harness {
	return func(t *testing.T) objstoretest.Harness {
		client := newClient(t)
		bucket := newBucket(t, client)
		root := ""
		if rootPrefix != "" {
			root = rootPrefix + "/"
			// Neighbours of the root prefix that must never show up.
			for _, k := range []string{rootPrefix, rootPrefix + "0", rootPrefix + "-x/y", "zzz/outside"} {
				putRaw(t, client, bucket, k)
			}
		}
		mk := func(opts ...s3store.Option) objstore.Store {
			s, err := s3store.New(client, bucket, rootPrefix, opts...)
			if err != nil {
				t.Fatal(err)
			}
			return s
		}
		return objstoretest.Harness{
			RacyPutIfAbsent:   isMoto(t),
			Store:             mk(),
			StoreWithPageSize: func(n int) objstore.Store { return mk(s3store.WithPageSize(n)) },
			MakeFolderMarker: func(t *testing.T, key string) {
				putRaw(t, client, bucket, root+key+"/")
			},
		}
	}
}

func TestConformance(t *testing.T) {
	objstoretest.RunConformanceTests(t, harness("root"))
}

func TestConformanceWholeBucket(t *testing.T) {
	objstoretest.RunConformanceTests(t, harness(""))
}

func TestLevelLister(t *testing.T) {
	objstoretest.RunLevelListerTests(t, harness("root"))
}
