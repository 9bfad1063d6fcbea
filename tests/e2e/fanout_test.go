package e2e

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/credentials"
	"github.com/aws/aws-sdk-go-v2/service/lambda"
	"github.com/aws/aws-sdk-go-v2/service/s3"

	"github.com/tributary-io/tributary/core/ingest/fanout"
	"github.com/tributary-io/tributary/infra/lambdafn"
)

// fakeLambda serves the Lambda Invoke API (POST
// /2015-03-31/functions/{name}/invocations) for the commit function's
// converter invocations: each runs in a fresh App (a separate function
// instance, on the emulator's S3 and DynamoDB) and goes on when the caller
// stops waiting, as Lambda invocations do. fail, when set, decides per
// share whether an invocation is lost before it runs ("before") or after
// its report is sealed ("after").
type fakeLambda struct {
	f      *fixture
	mu     sync.Mutex
	shares []int
	fail   func(share int) string
	wg     sync.WaitGroup
}

func (fl *fakeLambda) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodPost || !strings.HasSuffix(r.URL.Path, "/invocations") {
		http.Error(w, "not the Invoke API", http.StatusNotFound)
		return
	}
	body, err := io.ReadAll(r.Body)
	if err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	var req lambdafn.ConvertRequest
	if err := json.Unmarshal(body, &req); err != nil || req.Action != lambdafn.ActionConvert {
		http.Error(w, "not a convert request: "+string(body), http.StatusBadRequest)
		return
	}
	fl.mu.Lock()
	fl.shares = append(fl.shares, req.Share)
	how := ""
	if fl.fail != nil {
		how = fl.fail(req.Share)
	}
	fl.mu.Unlock()
	functionError := func(msg string) {
		w.Header().Set("X-Amz-Function-Error", "Unhandled")
		b, _ := json.Marshal(map[string]string{"errorMessage": msg, "errorType": "Runtime.ExitError"})
		w.Write(b)
	}
	if how == "before" {
		functionError("RequestId: x Error: Runtime exited with error: signal: killed")
		return
	}
	fl.wg.Add(1)
	defer fl.wg.Done()
	app := fl.f.newApp()
	res, err := app.HandleCommitInvoke(context.WithoutCancel(r.Context()), body)
	if err != nil {
		functionError(err.Error())
		return
	}
	if how == "after" {
		functionError("Task timed out after 900.00 seconds")
		return
	}
	json.NewEncoder(w).Encode(res)
}

// TestFanoutThroughLambdaInvoke runs the commit function with fan-out on the
// emulator: the batch's shares are converted by Lambda invocations of the
// function itself (the real SDK client against the Invoke API), one
// invocation is lost before it runs and one after it reported; the kick
// fails, its redelivery converts only the shares without a report, and the
// table holds every row once in a single version (read by delta-rs).
func TestFanoutThroughLambdaInvoke(t *testing.T) {
	f := newFixture(t)
	fl := &fakeLambda{f: f}
	failed := map[int]bool{}
	fl.fail = func(share int) string {
		if failed[share] {
			return ""
		}
		failed[share] = true
		switch share {
		case 1:
			return "before"
		case 2:
			return "after"
		}
		return ""
	}
	srv := httptest.NewServer(fl)
	t.Cleanup(srv.Close)
	client := lambda.New(lambda.Options{
		Region:       "us-east-1",
		BaseEndpoint: aws.String(srv.URL),
		Credentials:  credentials.NewStaticCredentialsProvider("test", "test", ""),
	})
	f.app.Fanout = &fanout.Config{Runner: lambdafn.InvokeRunner{Client: client, Function: "tributary-events-commit"}, MaxConverters: 4, BytesPerConverter: 1}

	files := makeInputs("fan", 20)
	f.upload(files)
	for {
		msgs := f.receive(f.eventsURL, 10)
		if len(msgs) == 0 {
			break
		}
		if resp := f.deliverEvents(msgs); len(resp.BatchItemFailures) > 0 {
			t.Fatalf("discovery failed %+v", resp.BatchItemFailures)
		}
	}
	kicks := f.receive(f.kickURL, 1)
	if len(kicks) != 1 {
		t.Fatalf("want a kick after discovery, got %d", len(kicks))
	}
	ev := sqsEvent(f.kickARN, kicks)
	resp, err := f.app.HandleCommit(t.Context(), ev)
	if err != nil || len(resp.BatchItemFailures) != 1 {
		t.Fatalf("first commit run: want the kick failed by the lost converters, got %+v %v", resp, err)
	}
	fl.wg.Wait() // the invocations the committer gave up on run to their end
	if _, err := f.s3.HeadObject(t.Context(), &s3.HeadObjectInput{Bucket: aws.String(f.bucket), Key: aws.String(tablePrefix + "/_delta_log/00000000000000000000.json")}); err == nil {
		t.Fatal("a version was committed while a share had no report")
	}
	// The kick comes back (SQS redelivery after the visibility timeout)
	// until the run commits: each retry converts exactly the shares that
	// have no report yet (a share the failed run never invoked meets its
	// own injected failure on a later run).
	for attempt := 2; ; attempt++ {
		reported, before := f.reports(), len(fl.shares)
		if attempt > 4 {
			t.Fatal("no commit after 3 redeliveries")
		}
		resp, err = f.app.HandleCommit(t.Context(), ev)
		fl.wg.Wait()
		if err != nil {
			t.Fatal(err)
		}
		again := len(fl.shares) - before
		if len(resp.BatchItemFailures) == 0 && again != 4-reported {
			t.Fatalf("run %d invoked %d converters, want %d (the shares without a report; invocations %v)", attempt, again, 4-reported, fl.shares)
		}
		if again > 4-reported {
			t.Fatalf("run %d invoked %d converters with %d shares reported", attempt, again, reported)
		}
		if len(resp.BatchItemFailures) == 0 {
			break
		}
	}
	f.deleteMessages(f.kickURL, kicks, nil)
	if n := f.reports(); n != 4 {
		t.Fatalf("%d share reports, want 4", n)
	}
	f.drain()
	snap := f.readTable()
	if snap.Version != 0 {
		t.Fatalf("table at version %d, want the batch in one version (0)", snap.Version)
	}
	checkRows(t, snap, files)
	f.checkCommitted(files)
}

// reports counts the share reports in the stream's checkpoint.
func (f *fixture) reports() int {
	f.t.Helper()
	out, err := f.s3.ListObjectsV2(f.t.Context(), &s3.ListObjectsV2Input{
		Bucket: aws.String(f.bucket), Prefix: aws.String("_checkpoints/" + streamID + "/" + fanout.ReportsPrefix),
	})
	if err != nil {
		f.t.Fatal(err)
	}
	return len(out.Contents)
}
