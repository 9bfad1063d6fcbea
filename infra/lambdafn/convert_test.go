package lambdafn

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/aws/aws-lambda-go/events"
	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/lambda"

	"github.com/tributary-io/tributary/core/ingest/fanout"
	"github.com/tributary-io/tributary/core/options"
)

func TestFanoutFrom(t *testing.T) {
	env := func(kv ...string) func(string) string {
		m := map[string]string{}
		for i := 0; i+1 < len(kv); i += 2 {
			m[kv[i]] = kv[i+1]
		}
		return func(k string) string { return m[k] }
	}
	tests := []struct {
		name    string
		getenv  func(string) string
		wantMax int   // 0: fan-out off
		wantPer int64 // BytesPerConverter
		wantErr string
	}{
		{"unset", env(), 0, 0, ""},
		{"one converter", env(EnvMaxConverters, "1", EnvFunctionName, "fn"), 0, 0, ""},
		{"four", env(EnvMaxConverters, "4", EnvFunctionName, "fn"), 4, 0, ""},
		{"bytes", env(EnvMaxConverters, "8", EnvConverterBytes, "67108864", EnvFunctionName, "fn"), 8, 64 << 20, ""},
		{"not a number", env(EnvMaxConverters, "many", EnvFunctionName, "fn"), 0, 0, EnvMaxConverters},
		{"too many", env(EnvMaxConverters, "65", EnvFunctionName, "fn"), 0, 0, EnvMaxConverters},
		{"zero", env(EnvMaxConverters, "0", EnvFunctionName, "fn"), 0, 0, EnvMaxConverters},
		{"tiny bytes", env(EnvMaxConverters, "2", EnvConverterBytes, "1000", EnvFunctionName, "fn"), 0, 0, EnvConverterBytes},
		{"no function name", env(EnvMaxConverters, "2"), 0, 0, EnvFunctionName},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			cfg, err := FanoutFrom(tc.getenv, nil)
			if tc.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
					t.Fatalf("want an error naming %s, got %v", tc.wantErr, err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if tc.wantMax == 0 {
				if cfg != nil {
					t.Fatalf("want fan-out off, got %+v", cfg)
				}
				return
			}
			if cfg == nil || cfg.MaxConverters != tc.wantMax || cfg.BytesPerConverter != tc.wantPer || cfg.Runner.(InvokeRunner).Function != "fn" {
				t.Fatalf("config %+v", cfg)
			}
		})
	}
}

// appInvoker plays Lambda for InvokeRunner: each invocation runs the
// payload through app's HandleCommitInvoke and answers as Lambda does,
// with a FunctionError on failure. (With a local checkpoint the stream's
// state file admits one opener, so the converters share the committer's
// App here; tests/e2e runs them as separate instances on DynamoDB.)
type appInvoker struct {
	app   *App
	mu    sync.Mutex
	calls []fanout.Request
	fail  func(req fanout.Request) bool
	// hang, when it returns true, makes the invocation hang until its
	// caller stops waiting (a converter that never answers).
	hang func(req fanout.Request) bool
}

func (iv *appInvoker) Invoke(ctx context.Context, in *lambda.InvokeInput, _ ...func(*lambda.Options)) (*lambda.InvokeOutput, error) {
	var req ConvertRequest
	if err := json.Unmarshal(in.Payload, &req); err != nil || req.Action != ActionConvert {
		return nil, fmt.Errorf("bad payload %s: %v", in.Payload, err)
	}
	iv.mu.Lock()
	iv.calls = append(iv.calls, req.Request)
	fail := iv.fail != nil && iv.fail(req.Request)
	hang := iv.hang != nil && iv.hang(req.Request)
	iv.mu.Unlock()
	if hang {
		<-ctx.Done()
		return nil, fmt.Errorf("operation error Lambda: Invoke, %w", ctx.Err())
	}
	if fail {
		return &lambda.InvokeOutput{StatusCode: 200, FunctionError: aws.String("Unhandled"),
			Payload: []byte(`{"errorMessage":"Task timed out after 900.00 seconds","errorType":"Timeout"}`)}, nil
	}
	// A function invocation runs on when its caller gives up waiting.
	res, err := iv.app.HandleCommitInvoke(context.WithoutCancel(ctx), in.Payload)
	if err != nil {
		b, _ := json.Marshal(map[string]string{"errorMessage": err.Error(), "errorType": "error"})
		return &lambda.InvokeOutput{StatusCode: 200, FunctionError: aws.String("Unhandled"), Payload: b}, nil
	}
	b, err := json.Marshal(res)
	if err != nil {
		return nil, err
	}
	return &lambda.InvokeOutput{StatusCode: 200, Payload: b}, nil
}

// The commit function fans a wide batch out to invocations of itself
// ({"action":"convert",...}), each sealing a share report, and commits
// them in one version; a failed converter invocation fails the kick, and
// the retried kick converts only the shares without a report.
func TestCommitFunctionFansOut(t *testing.T) {
	newApp, dir, rows := fanoutStream(t)
	failed := map[int]bool{}
	app := newApp()
	iv := &appInvoker{app: app, fail: func(req fanout.Request) bool {
		if req.Share == 1 && !failed[1] {
			failed[1] = true
			return true
		}
		return false
	}}
	app.Fanout = &fanout.Config{Runner: InvokeRunner{Client: iv, Function: "commit"}, MaxConverters: 4, BytesPerConverter: 1}
	ctx := context.Background()
	discover(t, app)
	kick := events.SQSEvent{Records: []events.SQSMessage{{MessageId: "m", Body: `{"stream":"s","reason":"discovered","at":"2025-01-01T00:00:00Z"}`}}}
	resp, err := app.HandleCommit(ctx, kick)
	if err != nil || len(resp.BatchItemFailures) != 1 {
		t.Fatalf("first kick: want it failed by the converter, got %+v %v", resp, err)
	}
	if _, err := os.Stat(filepath.Join(dir, "table", "_delta_log")); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("nothing may be committed while a share is missing: %v", err)
	}
	// The first run's error cancels the shares not yet invoked; those
	// invoked run to their end, as Lambda invocations do.
	first := len(iv.calls)
	reported, _ := filepath.Glob(filepath.Join(dir, "cp", "fanout", "*", "*", "*", "*.json"))
	if first < 1 || len(reported) > 3 || len(reported) > first-1 {
		t.Fatalf("after the failed kick: %d invocations, %d reports", first, len(reported))
	}
	resp, err = app.HandleCommit(ctx, kick)
	if err != nil || len(resp.BatchItemFailures) != 0 {
		t.Fatalf("retried kick: %+v %v", resp, err)
	}
	if len(iv.calls)-first != 4-len(reported) {
		t.Fatalf("the retried kick invoked %d converters, want %d (the shares without a report)", len(iv.calls)-first, 4-len(reported))
	}
	n, files := tableRows(t, filepath.Join(dir, "table"))
	if n != int64(rows) || files < 4 || tableVersion(t, filepath.Join(dir, "table")) != 0 {
		t.Fatalf("table: %d rows in %d files at version %d, want %d rows in one version", n, files, tableVersion(t, filepath.Join(dir, "table")), rows)
	}
	// A bad convert invocation names the problem.
	if _, err := newApp().HandleCommitInvoke(ctx, json.RawMessage(`{"action":"convert","stream":"nope","batch":0,"shares":2,"share":0}`)); !errors.Is(err, ErrBadInvocation) {
		t.Fatalf("unknown stream: %v", err)
	}
}

// A converter that never answers fails its share once the committer's
// deadline (less the runner's margin) comes, with ErrConverterTimeout: the
// kick fails and is retried, and the retry commits the batch; the stream
// does not wait for the converter forever.
func TestHungConverterFailsItsShare(t *testing.T) {
	hung := &appInvoker{hang: func(fanout.Request) bool { return true }}
	r := InvokeRunner{Client: hung, Function: "commit", Margin: time.Minute}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute+100*time.Millisecond)
	defer cancel()
	err := r.Convert(ctx, fanout.Request{Stream: "s", Batch: 3, Shares: 2, Share: 1})
	if !errors.Is(err, ErrConverterTimeout) || !strings.Contains(err.Error(), "share 1 of batch 3") {
		t.Fatalf("hung converter: %v, want ErrConverterTimeout naming the share", err)
	}
	// Without a deadline, MaxWait bounds the wait.
	err = InvokeRunner{Client: hung, Function: "commit", MaxWait: 50 * time.Millisecond}.Convert(context.Background(), fanout.Request{Stream: "s", Shares: 2})
	if !errors.Is(err, ErrConverterTimeout) {
		t.Fatalf("hung converter without a deadline: %v, want ErrConverterTimeout", err)
	}
	// The caller's own cancellation is not a converter timeout.
	gone, stop := context.WithCancel(context.Background())
	stop()
	if err := r.Convert(gone, fanout.Request{Stream: "s", Shares: 2}); err == nil || errors.Is(err, ErrConverterTimeout) {
		t.Fatalf("cancelled caller: %v, want its cancellation", err)
	}

	// Through the commit function: share 2 hangs on the first kick.
	newApp, dir, rows := fanoutStream(t)
	app := newApp()
	iv := &appInvoker{app: app, hang: func(req fanout.Request) bool { return req.Share == 2 }}
	app.TimeMargin = time.Second
	app.Fanout = &fanout.Config{Runner: InvokeRunner{Client: iv, Function: "commit", Margin: 9 * time.Second}, MaxConverters: 4, BytesPerConverter: 1}
	discover(t, app)
	kick := events.SQSEvent{Records: []events.SQSMessage{{MessageId: "m", Body: `{"stream":"s","reason":"discovered","at":"2025-01-01T00:00:00Z"}`}}}
	short, cancel2 := context.WithTimeout(context.Background(), 10*time.Second)
	resp, err := app.HandleCommit(short, kick)
	cancel2()
	if err != nil || len(resp.BatchItemFailures) != 1 {
		t.Fatalf("kick with a hung converter: want it failed, got %+v %v", resp, err)
	}
	if _, err := os.Stat(filepath.Join(dir, "table", "_delta_log")); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("nothing may be committed while a share is missing: %v", err)
	}
	iv.mu.Lock()
	iv.hang = nil
	iv.mu.Unlock()
	if resp, err := app.HandleCommit(context.Background(), kick); err != nil || len(resp.BatchItemFailures) != 0 {
		t.Fatalf("retried kick: %+v %v", resp, err)
	}
	if n, _ := tableRows(t, filepath.Join(dir, "table")); n != int64(rows) {
		t.Fatalf("table has %d rows, want %d", n, rows)
	}
}

// fanoutStream writes 12 small JSON files to a local source and returns a
// constructor of commit-function Apps serving stream "s" over it, the
// directory (table in dir/table) and the number of rows.
func fanoutStream(t *testing.T) (newApp func() *App, dir string, rows int) {
	t.Helper()
	dir = t.TempDir()
	src := filepath.Join(dir, "in")
	if err := os.MkdirAll(src, 0o755); err != nil {
		t.Fatal(err)
	}
	for i := range 12 {
		var b strings.Builder
		for j := 0; j <= i%4; j++ {
			fmt.Fprintf(&b, `{"id":%d,"file":%d}`+"\n", rows, i)
			rows++
		}
		if err := os.WriteFile(filepath.Join(src, fmt.Sprintf("f%02d.json", i)), []byte(b.String()), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	s, err := options.Parse(map[string]string{"cloudFiles.format": "json", "cloudFiles.useNotifications": "true"},
		options.Locations{StreamID: "s", Source: src, Table: filepath.Join(dir, "table"),
			CheckpointLocation: filepath.Join(dir, "cp"), SchemaLocation: filepath.Join(dir, "cp")})
	if err != nil {
		t.Fatal(err)
	}
	logger := slog.New(slog.NewTextHandler(testLog{t}, nil))
	newApp = func() *App {
		env := runtimeEnv()
		env.Logger, env.TempDir = logger, t.TempDir()
		return &App{Config: &options.Config{Streams: []*options.Stream{s}}, Env: env, Logger: logger, Metrics: io.Discard}
	}
	return newApp, dir, rows
}

// discover opens app's stream "s" (with app.Fanout as it is now) and lists
// its source.
func discover(t *testing.T, app *App) {
	t.Helper()
	st, err := app.stream(context.Background(), "s")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	if _, err := st.Discover(context.Background()); err != nil {
		t.Fatal(err)
	}
}

type testLog struct{ t *testing.T }

func (w testLog) Write(p []byte) (int, error) {
	w.t.Log(strings.TrimSpace(string(p)))
	return len(p), nil
}
