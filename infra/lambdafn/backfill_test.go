package lambdafn

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/lambda"
	lambdatypes "github.com/aws/aws-sdk-go-v2/service/lambda/types"

	"github.com/tributary-io/tributary/core/options"
	tevents "github.com/tributary-io/tributary/events"
)

// continuations plays Lambda's asynchronous invocation queue for
// HandleBackfill's continuations: it records each event; the test then
// delivers them as Lambda would.
type continuations struct {
	mu     sync.Mutex
	queued []BackfillEvent
	fail   error
}

func (c *continuations) Continue(_ context.Context, ev BackfillEvent) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.fail != nil {
		return c.fail
	}
	c.queued = append(c.queued, ev)
	return nil
}

func (c *continuations) next() (BackfillEvent, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if len(c.queued) == 0 {
		return BackfillEvent{}, false
	}
	ev := c.queued[0]
	c.queued = c.queued[1:]
	return ev, true
}

// syncKicks records kicks from concurrent stream backfills.
type syncKicks struct {
	mu  sync.Mutex
	got []tevents.Kick
}

func (k *syncKicks) Kick(_ context.Context, kk tevents.Kick) error {
	k.mu.Lock()
	defer k.mu.Unlock()
	k.got = append(k.got, kk)
	return nil
}

// listingApp returns a backfill App over two local directory-listing
// streams: "big" with n files and "small" with 2, whose listings measure
// their budget on a clock that advances a second per reading.
func listingApp(t *testing.T, n int) (*App, *continuations) {
	t.Helper()
	dir := t.TempDir()
	var list []*options.Stream
	for id, files := range map[string]int{"big": n, "small": 2} {
		src := filepath.Join(dir, id, "in")
		for i := range files {
			sub := filepath.Join(src, fmt.Sprintf("d%02d", i%5))
			if err := os.MkdirAll(sub, 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(filepath.Join(sub, fmt.Sprintf("f%03d.json", i)), []byte(`{"i":1}`+"\n"), 0o644); err != nil {
				t.Fatal(err)
			}
		}
		s, err := options.Parse(map[string]string{"cloudFiles.format": "json", "cloudFiles.useNotifications": "false"},
			options.Locations{StreamID: id, Source: src, Table: filepath.Join(dir, id, "table"),
				CheckpointLocation: filepath.Join(dir, id, "cp"), SchemaLocation: filepath.Join(dir, id, "cp")})
		if err != nil {
			t.Fatal(err)
		}
		list = append(list, s)
	}
	logger := slog.New(slog.NewTextHandler(io.Discard, nil))
	env := runtimeEnv()
	env.Logger, env.TempDir = logger, t.TempDir()
	clock := struct {
		sync.Mutex
		t time.Time
	}{t: time.Date(2026, 12, 1, 0, 0, 0, 0, time.UTC)}
	c := &continuations{}
	app := &App{Config: &options.Config{Streams: list}, Env: env, Logger: logger, Metrics: io.Discard, Kicker: &syncKicks{}, Continuer: c,
		ListingClock: func() time.Time {
			clock.Lock()
			defer clock.Unlock()
			clock.t = clock.t.Add(time.Second)
			return clock.t
		}}
	t.Cleanup(func() {
		for _, s := range app.opened {
			s.Close()
		}
	})
	return app, c
}

// invoke runs HandleBackfill as Lambda does, with a budget of about budget
// listing-clock seconds past the time margin.
func invoke(t *testing.T, app *App, ev *BackfillEvent, budget time.Duration) BackfillResult {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), DefaultTimeMargin+budget)
	defer cancel()
	res, err := app.HandleBackfill(ctx, ev)
	if err != nil {
		t.Fatalf("HandleBackfill(%+v): %v (%+v)", ev, err, res)
	}
	return res
}

// TestBackfillContinuesItself: a listing that does not fit in one
// invocation hands itself to a continuation (the function invoking itself
// asynchronously), which resumes only the stopped stream at once, chain
// after chain, until the pass completes: one scheduled run, no waiting for
// the next BackfillInterval. Each file is registered once; a completed
// stream is not listed again by the continuations.
func TestBackfillContinuesItself(t *testing.T) {
	const n = 150
	app, c := listingApp(t, n)
	res := invoke(t, app, nil, 30*time.Second)
	found := map[string]int{}
	runs := map[string]int{}
	for k := 0; ; k++ {
		var stopped []string
		for id, sb := range res.Streams {
			found[id] += sb.NumNewListedFiles
			runs[id]++
			if sb.Error != "" || sb.PassRuns != runs[id] || sb.Stopped != sb.Continued {
				t.Fatalf("run %d: stream %s = %+v", k, id, sb)
			}
			if sb.Stopped {
				stopped = append(stopped, id)
			}
		}
		slices.Sort(stopped)
		ev, ok := c.next()
		if !ok {
			if len(stopped) > 0 {
				t.Fatalf("run %d stopped %v without a continuation", k, stopped)
			}
			break
		}
		if k > 50 {
			t.Fatal("the continuations never ended")
		}
		if !slices.Equal(ev.Continue, stopped) || ev.Continuation != k+1 {
			t.Fatalf("continuation after run %d = %+v, want {continue:%v, continuation:%d}", k, ev, stopped, k+1)
		}
		res = invoke(t, app, &ev, 30*time.Second)
		if res.Continuation != k+1 || len(res.Streams) != len(stopped) {
			t.Fatalf("continuation %d = %+v; want only %v", k+1, res, stopped)
		}
	}
	// The two streams list side by side on one clock, as they share an
	// invocation's deadline: when the scheduler runs big's listing first
	// (seen at load ~14), big can spend a run's budget before small
	// reads its first key, and small then stops and continues too. Small
	// still never needs a run beyond the one after big's last.
	if runs["big"] < 3 || runs["small"] > runs["big"]+1 {
		t.Fatalf("runs per stream %v; the budget should need several for big, and small at most one run past big's last", runs)
	}
	if found["big"] != n || found["small"] != 2 {
		t.Fatalf("the chain registered %v new files, want big %d, small 2", found, n)
	}
	// A continuation delivered again (Lambda retries, a duplicate) after
	// the pass completed lists nothing.
	if res := invoke(t, app, &BackfillEvent{Continue: []string{"big"}, Continuation: runs["big"]}, time.Hour); res.Streams["big"] != (StreamBackfill{}) {
		t.Fatalf("late continuation = %+v, want nothing listed", res)
	}
	// The next scheduled run starts a new pass: every file known.
	if res := invoke(t, app, nil, time.Hour); res.Streams["big"].NumListedFiles != n || res.Streams["big"].NumNewListedFiles != 0 || res.Streams["big"].Continued {
		t.Fatalf("next scheduled run = %+v", res)
	}
}

// TestBackfillContinuationBounds: a chain stops at MaxContinuations (the
// listing keeps its position for the next scheduled run), a continuation
// that cannot be started is reported without failing the run, and a
// continuation naming an unknown stream is refused.
func TestBackfillContinuationBounds(t *testing.T) {
	app, c := listingApp(t, 150)
	app.MaxContinuations = 2
	res := invoke(t, app, nil, 20*time.Second)
	for ev, ok := c.next(); ok; ev, ok = c.next() {
		res = invoke(t, app, &ev, 20*time.Second)
	}
	if res.Continuation != 2 || !res.Streams["big"].Stopped || res.Streams["big"].Continued || !strings.Contains(res.ContinueError, ErrContinuationsExhausted.Error()) {
		t.Fatalf("last run of the chain = %+v; want continuation 2 stopped, not continued, exhausted", res)
	}
	// The schedule resumes the same pass.
	if res := invoke(t, app, nil, 20*time.Second); res.Streams["big"].PassRuns != 4 || !res.Streams["big"].Continued {
		t.Fatalf("scheduled run after the bound = %+v, want the pass resumed (run 4) and continued", res)
	}
	c.next()
	c.fail = errors.New("throttled")
	if res := invoke(t, app, nil, 20*time.Second); !strings.Contains(res.ContinueError, "throttled") || res.Streams["big"].Continued {
		t.Fatalf("run with a failing continuation = %+v", res)
	}
	if _, err := app.HandleBackfill(context.Background(), &BackfillEvent{Continue: []string{"nope"}, Continuation: 1}); !errors.Is(err, ErrBadInvocation) {
		t.Fatalf("unknown stream: %v, want ErrBadInvocation", err)
	}
}

// asyncClient records the Invoke calls of AsyncInvoker.
type asyncClient struct {
	in     *lambda.InvokeInput
	status int32
}

func (a *asyncClient) Invoke(_ context.Context, in *lambda.InvokeInput, _ ...func(*lambda.Options)) (*lambda.InvokeOutput, error) {
	a.in = in
	return &lambda.InvokeOutput{StatusCode: a.status}, nil
}

func TestAsyncInvoker(t *testing.T) {
	cl := &asyncClient{status: 202}
	if err := (AsyncInvoker{Client: cl, Function: "bf"}).Continue(context.Background(), BackfillEvent{Continue: []string{"a"}, Continuation: 2}); err != nil {
		t.Fatal(err)
	}
	if aws.ToString(cl.in.FunctionName) != "bf" || cl.in.InvocationType != lambdatypes.InvocationTypeEvent || string(cl.in.Payload) != `{"continue":["a"],"continuation":2}` {
		t.Fatalf("invocation %+v payload %s", cl.in, cl.in.Payload)
	}
	cl.status = 500
	if err := (AsyncInvoker{Client: cl, Function: "bf"}).Continue(context.Background(), BackfillEvent{Continue: []string{"a"}}); err == nil {
		t.Fatal("status 500 accepted")
	}
}
