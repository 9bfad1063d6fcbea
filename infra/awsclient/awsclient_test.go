package awsclient_test

import (
	"context"
	"fmt"
	"hash/crc32"
	"maps"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/s3"
	"github.com/aws/aws-sdk-go-v2/service/sqs"

	"github.com/tributary-io/tributary/infra/awsclient"
	"github.com/tributary-io/tributary/infra/awstest"
)

func TestMain(m *testing.M) { awstest.Main(m) }

// testEnv gives Load static credentials and a clean environment.
func testEnv(t *testing.T) {
	t.Setenv("AWS_ACCESS_KEY_ID", "test")
	t.Setenv("AWS_SECRET_ACCESS_KEY", "test")
	t.Setenv("AWS_SESSION_TOKEN", "")
	t.Setenv("AWS_PROFILE", "")
	t.Setenv("AWS_CONFIG_FILE", "/nonexistent")
	t.Setenv("AWS_SHARED_CREDENTIALS_FILE", "/nonexistent")
	t.Setenv("AWS_REGION", "")
	t.Setenv("AWS_DEFAULT_REGION", "")
	t.Setenv(awsclient.EnvEndpoint, "")
	t.Setenv(awsclient.EnvRetryMode, "")
	t.Setenv(awsclient.EnvMaxAttempts, "")
}

func TestLoadSettings(t *testing.T) {
	tests := []struct {
		name         string
		env          map[string]string
		opts         []awsclient.Option
		wantErr      string
		wantRegion   string
		wantEndpoint string
		wantAttempts int
		wantMode     string
	}{
		{name: "region from env", env: map[string]string{"AWS_REGION": "eu-west-1"},
			wantRegion: "eu-west-1", wantAttempts: 8, wantMode: "*retry.Standard"},
		{name: "no region and no endpoint", wantErr: "AWS_REGION"},
		{name: "endpoint from env defaults region",
			env:        map[string]string{"AWS_ENDPOINT_URL": "http://127.0.0.1:1"},
			wantRegion: "us-east-1", wantEndpoint: "http://127.0.0.1:1", wantAttempts: 8, wantMode: "*retry.Standard"},
		{name: "options win over env",
			env:        map[string]string{"AWS_REGION": "eu-west-1", "AWS_ENDPOINT_URL": "http://127.0.0.1:1", "AWS_MAX_ATTEMPTS": "3"},
			opts:       []awsclient.Option{awsclient.WithRegion("ap-south-1"), awsclient.WithEndpoint("http://127.0.0.1:2"), awsclient.WithMaxAttempts(5)},
			wantRegion: "ap-south-1", wantEndpoint: "http://127.0.0.1:2", wantAttempts: 5, wantMode: "*retry.Standard"},
		{name: "adaptive from env",
			env:        map[string]string{"AWS_REGION": "eu-west-1", "AWS_RETRY_MODE": "adaptive", "AWS_MAX_ATTEMPTS": "4"},
			wantRegion: "eu-west-1", wantAttempts: 4, wantMode: "*retry.AdaptiveMode"},
		{name: "bad retry mode", env: map[string]string{"AWS_REGION": "x", "AWS_RETRY_MODE": "yolo"}, wantErr: "AWS_RETRY_MODE"},
		{name: "bad max attempts", env: map[string]string{"AWS_REGION": "x", "AWS_MAX_ATTEMPTS": "0"}, wantErr: "AWS_MAX_ATTEMPTS"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			testEnv(t)
			for k, v := range tc.env {
				t.Setenv(k, v)
			}
			cfg, err := awsclient.Load(t.Context(), tc.opts...)
			if tc.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
					t.Fatalf("Load error = %v, want one naming %s", err, tc.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if cfg.Region != tc.wantRegion {
				t.Errorf("region = %q, want %q", cfg.Region, tc.wantRegion)
			}
			if got := aws.ToString(cfg.BaseEndpoint); got != tc.wantEndpoint {
				t.Errorf("endpoint = %q, want %q", got, tc.wantEndpoint)
			}
			if awsclient.HasEndpointOverride(cfg) != (tc.wantEndpoint != "") {
				t.Errorf("HasEndpointOverride = %v", awsclient.HasEndpointOverride(cfg))
			}
			wantChecksum := aws.RequestChecksumCalculationWhenSupported
			if tc.wantEndpoint != "" {
				wantChecksum = aws.RequestChecksumCalculationWhenRequired
			}
			if cfg.RequestChecksumCalculation != wantChecksum {
				t.Errorf("checksum calculation = %v, want %v", cfg.RequestChecksumCalculation, wantChecksum)
			}
			r := cfg.Retryer()
			if r.MaxAttempts() != tc.wantAttempts {
				t.Errorf("max attempts = %d, want %d", r.MaxAttempts(), tc.wantAttempts)
			}
			if got := fmt.Sprintf("%T", r); got != tc.wantMode {
				t.Errorf("retryer = %s, want %s", got, tc.wantMode)
			}
			var o s3.Options
			awsclient.S3Options(cfg)(&o)
			if o.UsePathStyle != (tc.wantEndpoint != "") {
				t.Errorf("UsePathStyle = %v with endpoint %q", o.UsePathStyle, tc.wantEndpoint)
			}
		})
	}
}

// throttlingServer answers the first fail requests with a throttling error
// in the service's wire format and then succeeds.
func throttlingServer(t *testing.T, fail int32, throttle, ok func(w http.ResponseWriter)) (*httptest.Server, *atomic.Int32) {
	var n atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if n.Add(1) <= fail {
			throttle(w)
			return
		}
		ok(w)
	}))
	t.Cleanup(srv.Close)
	return srv, &n
}

func TestThrottlingIsRetried(t *testing.T) {
	s3SlowDown := func(w http.ResponseWriter) {
		w.Header().Set("Content-Type", "application/xml")
		w.WriteHeader(http.StatusServiceUnavailable)
		fmt.Fprint(w, `<?xml version="1.0" encoding="UTF-8"?><Error><Code>SlowDown</Code><Message>Please reduce your request rate.</Message></Error>`)
	}
	s3OK := func(w http.ResponseWriter) { w.Header().Set("ETag", `"abc"`); w.WriteHeader(http.StatusOK) }
	ddbReply := func(w http.ResponseWriter, status int, body string) {
		w.Header().Set("Content-Type", "application/x-amz-json-1.0")
		w.Header().Set("X-Amz-Crc32", fmt.Sprint(crc32.ChecksumIEEE([]byte(body))))
		w.WriteHeader(status)
		fmt.Fprint(w, body)
	}
	ddbThrottle := func(w http.ResponseWriter) {
		ddbReply(w, http.StatusBadRequest, `{"__type":"com.amazonaws.dynamodb.v20120810#ProvisionedThroughputExceededException","message":"slow down"}`)
	}
	ddbOK := func(w http.ResponseWriter) { ddbReply(w, http.StatusOK, `{"TableNames":[]}`) }
	type call func(ctx context.Context, cfg aws.Config) error
	s3Put := func(ctx context.Context, cfg aws.Config) error {
		_, err := awsclient.NewS3(cfg).PutObject(ctx, &s3.PutObjectInput{Bucket: aws.String("b"), Key: aws.String("k"), Body: strings.NewReader("v")})
		return err
	}
	ddbList := func(ctx context.Context, cfg aws.Config) error {
		_, err := dynamodb.NewFromConfig(cfg).ListTables(ctx, &dynamodb.ListTablesInput{})
		return err
	}
	tests := []struct {
		name         string
		fail         int32
		throttle, ok func(http.ResponseWriter)
		call         call
		op           string
		wantErr      bool
		wantAttempts int32
	}{
		{"s3 slowdown then ok", 5, s3SlowDown, s3OK, s3Put, "S3.PutObject", false, 6},
		{"s3 slowdown beyond max attempts", 20, s3SlowDown, s3OK, s3Put, "S3.PutObject", true, 8},
		{"dynamodb throttled then ok", 7, ddbThrottle, ddbOK, ddbList, "DynamoDB.ListTables", false, 8},
		{"dynamodb throttled beyond max attempts", 8, ddbThrottle, ddbOK, ddbList, "DynamoDB.ListTables", true, 8},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			testEnv(t)
			srv, n := throttlingServer(t, tc.fail, tc.throttle, tc.ok)
			counter := awsclient.NewCallCounter()
			cfg, err := awsclient.Load(t.Context(), awsclient.WithEndpoint(srv.URL),
				awsclient.WithMaxBackoff(time.Millisecond), awsclient.WithAPIOptions(counter.AddTo))
			if err != nil {
				t.Fatal(err)
			}
			err = tc.call(t.Context(), cfg)
			if (err != nil) != tc.wantErr {
				t.Fatalf("call error = %v, want error: %v", err, tc.wantErr)
			}
			if got := n.Load(); got != tc.wantAttempts {
				t.Fatalf("server saw %d attempts, want %d", got, tc.wantAttempts)
			}
			if got := counter.Snapshot(); !maps.Equal(got, map[string]int{tc.op: 1}) {
				t.Fatalf("calls = %v, want one %s", got, tc.op)
			}
			if got := counter.Attempts(); got[tc.op] != int(tc.wantAttempts) {
				t.Fatalf("attempts = %v, want %d %s", got, tc.wantAttempts, tc.op)
			}
		})
	}
}

func TestCallCounterAgainstMoto(t *testing.T) {
	endpoint := awstest.Endpoint(t)
	testEnv(t)
	counter := awsclient.NewCallCounter()
	cfg, err := awsclient.Load(t.Context(), awsclient.WithEndpoint(endpoint), awsclient.WithAPIOptions(counter.AddTo))
	if err != nil {
		t.Fatal(err)
	}
	ctx := t.Context()
	s3c := awsclient.NewS3(cfg)
	bucket := fmt.Sprintf("counter-%d", time.Now().UnixNano())
	if _, err := s3c.CreateBucket(ctx, &s3.CreateBucketInput{Bucket: &bucket}); err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	for i := range 8 {
		wg.Go(func() {
			for j := range 3 {
				key := fmt.Sprintf("k/%d-%d", i, j)
				if _, err := s3c.PutObject(ctx, &s3.PutObjectInput{Bucket: &bucket, Key: &key, Body: strings.NewReader("v")}); err != nil {
					t.Error(err)
				}
			}
		})
	}
	wg.Wait()
	if _, err := s3c.ListObjectsV2(ctx, &s3.ListObjectsV2Input{Bucket: &bucket}); err != nil {
		t.Fatal(err)
	}
	_, err = s3c.HeadObject(ctx, &s3.HeadObjectInput{Bucket: &bucket, Key: aws.String("missing")})
	if err == nil {
		t.Fatal("HeadObject of a missing key succeeded")
	}
	if _, err := dynamodb.NewFromConfig(cfg).ListTables(ctx, &dynamodb.ListTablesInput{}); err != nil {
		t.Fatal(err)
	}
	sqsc := sqs.NewFromConfig(cfg)
	for range 2 {
		if _, err := sqsc.ListQueues(ctx, &sqs.ListQueuesInput{}); err != nil {
			t.Fatal(err)
		}
	}
	want := map[string]int{
		"S3.CreateBucket":     1,
		"S3.PutObject":        24,
		"S3.ListObjectsV2":    1,
		"S3.HeadObject":       1,
		"DynamoDB.ListTables": 1,
		"SQS.ListQueues":      2,
	}
	if got := counter.Snapshot(); !maps.Equal(got, want) {
		t.Fatalf("Snapshot = %v, want %v", got, want)
	}
	if got := counter.Total(); got != 30 {
		t.Fatalf("Total = %d, want 30", got)
	}
	// The snapshot is a copy.
	snap := counter.Snapshot()
	snap["S3.PutObject"] = 0
	if counter.Snapshot()["S3.PutObject"] != 24 {
		t.Fatal("Snapshot shares state with the counter")
	}
	counter.Reset()
	if got := counter.Snapshot(); len(got) != 0 {
		t.Fatalf("after Reset: %v", got)
	}
}
