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
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/credentials"
	"github.com/aws/aws-sdk-go-v2/service/lambda"
	"github.com/aws/aws-sdk-go-v2/service/s3"

	"github.com/tributary-io/tributary/core/ingest/fanout"
	"github.com/tributary-io/tributary/infra/awsclient"
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
	// newApp, when set, builds each converter's App (default f.newApp).
	newApp func() *lambdafn.App
	// one, when set, runs the converters one at a time; busy then sums
	// their wall time.
	one  *sync.Mutex
	busy time.Duration
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
	if fl.newApp != nil {
		app = fl.newApp()
	}
	if fl.one != nil {
		fl.one.Lock()
		start := time.Now()
		defer func() { fl.busy += time.Since(start); fl.one.Unlock() }()
	}
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

// TestFanoutCommitterSerialWork measures the committer's own work in a
// fan-out batch of a warm stream on the emulator (the s of the README's
// model: plan, claims, report reads, log commit): after a first batch of
// one file (unsplit; it infers the schema), one commit run of 20 files in
// 4 shares, the converters run one at a time through the Invoke API with
// their AWS calls counted apart. It checks the batch (one version, every
// row once, 4 reports) and logs one line that scripts can read:
// FANOUT-SERIAL committer_wall=… converters_wall=… committer_calls=N {op:count} ….
// Wall times on moto are the emulator's, not AWS's: the calls carry over.
func TestFanoutCommitterSerialWork(t *testing.T) {
	f := newFixture(t)
	convCalls := awsclient.NewCallCounter()
	fl := &fakeLambda{f: f, newApp: func() *lambdafn.App { return f.newAppCounting(convCalls) }, one: &sync.Mutex{}}
	srv := httptest.NewServer(fl)
	t.Cleanup(srv.Close)
	client := lambda.New(lambda.Options{
		Region:       "us-east-1",
		BaseEndpoint: aws.String(srv.URL),
		Credentials:  credentials.NewStaticCredentialsProvider("test", "test", ""),
	})
	f.app.Fanout = &fanout.Config{Runner: lambdafn.InvokeRunner{Client: client, Function: "tributary-events-commit"}, MaxConverters: 4, BytesPerConverter: 1}
	// run uploads files, delivers their events and runs the commit
	// function on the kick; it returns the run's wall time and the calls
	// of the committer and of the converters.
	run := func(files []inputFile) (time.Duration, time.Duration, map[string]int, map[string]int) {
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
		f.calls.Reset()
		convCalls.Reset()
		fl.busy = 0
		start := time.Now()
		resp, err := f.app.HandleCommit(t.Context(), sqsEvent(f.kickARN, kicks))
		wall := time.Since(start)
		fl.wg.Wait()
		if err != nil || len(resp.BatchItemFailures) != 0 {
			t.Fatalf("commit run: %+v %v", resp, err)
		}
		f.deleteMessages(f.kickURL, kicks, nil)
		return wall, fl.busy, f.calls.Snapshot(), convCalls.Snapshot()
	}
	warm := makeInputs("warm", 1)
	run(warm)
	if len(fl.shares) != 0 {
		t.Fatalf("the one-file batch fanned out to %v", fl.shares)
	}
	files := makeInputs("serial", 20)
	wall, busy, committer, converters := run(files)
	if len(fl.shares) != 4 || f.reports() != 4 {
		t.Fatalf("%d converter invocations (%v), %d reports; want 4 of each", len(fl.shares), fl.shares, f.reports())
	}
	f.drain()
	snap := f.readTable()
	if snap.Version != 1 {
		t.Fatalf("table at version %d, want the warm batch and the fanned-out batch in one version each (0, 1)", snap.Version)
	}
	checkRows(t, snap, append(warm, files...))
	f.checkCommitted(append(warm, files...))
	total := func(m map[string]int) (n int) {
		for _, c := range m {
			n += c
		}
		return n
	}
	t.Logf("FANOUT-SERIAL committer_wall=%s converters_wall=%s committer_calls=%d %v converter_calls=%d %v",
		(wall - busy).Round(time.Millisecond), busy.Round(time.Millisecond), total(committer), committer, total(converters), converters)
}
