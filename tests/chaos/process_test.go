package chaos

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync/atomic"
	"syscall"
	"testing"
	"time"
)

// buildCLI builds ./cmd/tributary from the module root into a temporary
// directory and returns the binary's path.
func buildCLI(t *testing.T) (bin, root string) {
	t.Helper()
	out, err := exec.Command("go", "env", "GOMOD").Output()
	if err != nil {
		t.Fatalf("go env GOMOD: %v", err)
	}
	gomod := strings.TrimSpace(string(out))
	if gomod == "" || gomod == os.DevNull {
		t.Fatal("not inside the module")
	}
	root = filepath.Dir(gomod)
	bin = filepath.Join(t.TempDir(), "tributary")
	cmd := exec.Command("go", "build", "-o", bin, "./cmd/tributary")
	cmd.Dir = root
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("go build ./cmd/tributary: %v\n%s", err, out)
	}
	return bin, root
}

// childEnv is the test's environment without what would point the CLI at AWS.
func childEnv() []string {
	var env []string
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, "TRIBUTARY_STATE_TABLE=") {
			env = append(env, kv)
		}
	}
	return env
}

// outcome is how one run of the CLI ended.
type outcome struct {
	killed     bool // terminated by the test's SIGKILL
	code       int  // exit code when not killed
	batchLines int  // "batch N: ..." progress lines printed before the end
	stdout     string
	stderr     string
	// firstBatch is the time from start to the first batch line (0: none);
	// batchGap the mean time between two batch lines (0: fewer than two).
	firstBatch, batchGap time.Duration
}

// evolvedStop: the run stopped for a schema change (exit code 1 with
// ingest.ErrSchemaEvolved), as addNewColumns does once per change.
func (o outcome) evolvedStop() bool {
	return !o.killed && o.code == 1 && strings.Contains(o.stderr, schemaEvolvedText)
}

func (o outcome) String() string {
	if o.killed {
		return fmt.Sprintf("SIGKILLed after %d batch lines", o.batchLines)
	}
	return fmt.Sprintf("exit %d after %d batch lines\nstdout:\n%s\nstderr:\n%s", o.code, o.batchLines, o.stdout, tail(o.stderr, 4000))
}

// killPlan says when to kill a run: after it printed afterLines batch
// progress lines, wait delay (or until the next batch line, if that comes
// first), then SIGKILL. afterLines < 0: never kill.
type killPlan struct {
	afterLines int
	delay      time.Duration
}

// hangGuard ends a run that has printed nothing new for this long; only a
// hung stream gets near it (a whole run takes well under a second here).
const hangGuard = 90 * time.Second

// runCLI runs the binary directly (no shell in between, so the SIGKILL hits
// the CLI itself). during, if set, is called right after the process has
// started, while it lists and ingests.
func runCLI(t *testing.T, bin string, args []string, kp killPlan, during func()) outcome {
	t.Helper()
	cmd := exec.Command(bin, args...)
	cmd.Env = childEnv()
	var stdout bytes.Buffer
	cmd.Stdout = &stdout
	pipe, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	if err := cmd.Start(); err != nil {
		t.Fatalf("starting %s: %v", bin, err)
	}
	var (
		stderr   bytes.Buffer // written by the reader until done is closed
		stamps   []time.Time  // of the batch lines, likewise
		lines    atomic.Int32
		progress = make(chan struct{}, 1)
		done     = make(chan struct{})
	)
	go func() {
		defer close(done)
		r := bufio.NewReader(pipe)
		for {
			line, err := r.ReadString('\n')
			stderr.WriteString(line)
			if strings.HasPrefix(line, "batch ") {
				stamps = append(stamps, time.Now())
				lines.Add(1)
			}
			select {
			case progress <- struct{}{}:
			default:
			}
			if err != nil {
				_, _ = io.Copy(io.Discard, pipe)
				return
			}
		}
	}()
	if during != nil {
		during()
	}
	hung := false
	if kp.afterLines >= 0 {
	wait:
		for int(lines.Load()) < kp.afterLines {
			select {
			case <-progress:
			case <-done:
				break wait
			case <-time.After(hangGuard):
				hung = true
				break wait
			}
		}
		// Then the delay, cut short by the next batch line: a kill lands
		// within the next batch, however the machine's pace varies.
		timer := time.NewTimer(kp.delay)
	delay:
		for !hung {
			select {
			case <-timer.C:
				break delay
			case <-progress:
				if int(lines.Load()) > kp.afterLines {
					break delay
				}
			case <-done:
				break delay
			}
		}
		timer.Stop()
		// The process has not been waited for, so the signal reaches it
		// (or its zombie, if it already exited: Wait then reports the exit).
		if err := cmd.Process.Signal(syscall.SIGKILL); err != nil && !errors.Is(err, os.ErrProcessDone) {
			t.Fatalf("SIGKILL: %v", err)
		}
	} else {
	run:
		for {
			select {
			case <-progress:
			case <-done:
				break run
			case <-time.After(hangGuard):
				hung = true
				_ = cmd.Process.Signal(syscall.SIGKILL)
				break run
			}
		}
	}
	<-done
	err = cmd.Wait()
	o := outcome{batchLines: int(lines.Load()), stdout: stdout.String(), stderr: stderr.String()}
	if len(stamps) > 0 {
		o.firstBatch = stamps[0].Sub(start)
	}
	if n := len(stamps); n > 1 {
		o.batchGap = stamps[n-1].Sub(stamps[0]) / time.Duration(n-1)
	}
	if hung {
		t.Fatalf("the run printed no progress for %s (a stuck stream?)\nstderr:\n%s", hangGuard, tail(o.stderr, 4000))
	}
	var exit *exec.ExitError
	if err != nil && !errors.As(err, &exit) {
		t.Fatalf("waiting for the CLI: %v", err)
	}
	ws, ok := cmd.ProcessState.Sys().(syscall.WaitStatus)
	if !ok {
		t.Fatalf("no wait status: %T", cmd.ProcessState.Sys())
	}
	switch {
	case ws.Signaled() && ws.Signal() == syscall.SIGKILL && kp.afterLines >= 0:
		o.killed = true
	case ws.Exited():
		o.code = ws.ExitStatus()
	default:
		t.Fatalf("the CLI ended with %v\nstderr:\n%s", cmd.ProcessState, tail(o.stderr, 4000))
	}
	return o
}

func tail(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return "…" + s[len(s)-n:]
}
