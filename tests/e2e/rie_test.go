//go:build linux

package e2e

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/aws/aws-lambda-go/events"
	"github.com/aws/aws-sdk-go-v2/aws"

	"github.com/tributary-io/tributary/core/state"
	"github.com/tributary-io/tributary/infra/lambdafn"
)

// functionNames are the three Lambda functions (functions/<name>).
var functionNames = []string{"discovery", "backfill", "commit"}

// TestBootstrapUnderRIE runs the real discovery and commit bootstrap
// binaries under the AWS Lambda Runtime Interface Emulator, configured only
// through the environment Boot reads, and follows one set of files from
// their S3 events to the Delta table. It records cold starts and the sizes
// of the deployable (linux/arm64) binaries in out/e2e-lambda.json.
func TestBootstrapUnderRIE(t *testing.T) {
	root := repoRoot(t)
	rie := scriptOutput(t, filepath.Join(root, "scripts", "rie.sh"))
	dir := t.TempDir()

	hostDir := filepath.Join(dir, "host")
	goBuild(t, root, hostDir, runtime.GOOS, runtime.GOARCH, "discovery", "commit")
	bootstrap := map[string]string{}
	for _, fn := range []string{"discovery", "commit"} {
		// A deployed function's executable is called bootstrap.
		fnDir := filepath.Join(dir, fn)
		if err := os.Mkdir(fnDir, 0o755); err != nil {
			t.Fatal(err)
		}
		bootstrap[fn] = filepath.Join(fnDir, "bootstrap")
		if err := os.Rename(filepath.Join(hostDir, fn), bootstrap[fn]); err != nil {
			t.Fatal(err)
		}
	}
	armDir := filepath.Join(dir, "linux-arm64")
	goBuild(t, root, armDir, "linux", "arm64", functionNames...)
	report := lambdaReport{
		RIE:         rieVersion(t, rie),
		Host:        runtime.GOOS + "/" + runtime.GOARCH,
		BinaryBytes: map[string]int64{},
		ColdStart:   map[string]coldStart{},
		BuildFlags:  "CGO_ENABLED=0 GOOS=linux GOARCH=arm64 go build -trimpath -ldflags '-s -w' -tags lambda.norpc",
	}
	for _, fn := range functionNames {
		fi, err := os.Stat(filepath.Join(armDir, fn))
		if err != nil {
			t.Fatal(err)
		}
		report.BinaryBytes[fn] = fi.Size()
		t.Logf("linux/arm64 %-9s %6.2f MiB (%d bytes)", fn, float64(fi.Size())/(1<<20), fi.Size())
	}

	f := newFixture(t)
	env := lambdaEnv(f)
	files := makeInputs("rie", 5)
	f.upload(files)
	msgs := f.receive(f.eventsURL, 10)
	if !coversKeys(t, msgs, files) { // copies allowed (coversKeys)
		t.Fatalf("received events %q, want one for each of %d files", bodiesOf(msgs), len(files))
	}
	ev := sqsEvent(f.eventsARN, msgs)
	const garbageID = "00000000-0000-0000-0000-garbage00001"
	ev.Records = append(ev.Records, events.SQSMessage{
		MessageId: garbageID, Body: "definitely not an S3 event", EventSource: "aws:sqs",
		EventSourceARN: f.eventsARN, AWSRegion: "us-east-1",
	})

	// Discovery: one cold invocation with the real events and a bad message.
	disc := startRIE(t, "discovery", rie, bootstrap["discovery"], env)
	var resp events.SQSEventResponse
	cold, _ := disc.invoke(t, ev, &resp)
	wantFailures := []events.SQSBatchItemFailure{{ItemIdentifier: garbageID}}
	if !slices.Equal(resp.BatchItemFailures, wantFailures) {
		t.Fatalf("discovery batchItemFailures = %+v, want %+v", resp.BatchItemFailures, wantFailures)
	}
	f.deleteMessages(f.eventsURL, msgs, nil)
	st := f.state()
	var pending []string
	for e, err := range st.Entries(t.Context(), streamID, state.Pending) {
		if err != nil {
			t.Fatal(err)
		}
		pending = append(pending, e.Path)
	}
	if len(pending) != len(files) {
		t.Fatalf("after discovery %d files are pending (%q), want %d", len(pending), pending, len(files))
	}
	// A warm invocation with the same (redelivered) events: the files are
	// still pending, so the inbox store hands them over again (a second
	// inbox record and kick, state.PendingRepeater) — the state still
	// shows one pending entry per file, and the commit ingests each once.
	var warmResp events.SQSEventResponse
	_, warm := disc.invoke(t, ev, &warmResp)
	if !slices.Equal(warmResp.BatchItemFailures, wantFailures) {
		t.Fatalf("warm discovery batchItemFailures = %+v, want %+v", warmResp.BatchItemFailures, wantFailures)
	}
	report.ColdStart["discovery"] = disc.coldStart(t, cold, warm)
	pending = pending[:0]
	for e, err := range st.Entries(t.Context(), streamID, state.Pending) {
		if err != nil {
			t.Fatal(err)
		}
		pending = append(pending, e.Path)
	}
	if len(pending) != len(files) {
		t.Fatalf("after the redelivered events %d files are pending (%q), want %d", len(pending), pending, len(files))
	}

	// Commit: the kicks discovery sent (one per invocation: the window
	// that collapses them is off here).
	kicks := f.receive(f.kickURL, 10)
	if len(kicks) != 2 {
		t.Fatalf("kick queue holds %d messages after two discovery invocations, want 2: %q", len(kicks), bodiesOf(kicks))
	}
	com := startRIE(t, "commit", rie, bootstrap["commit"], env)
	var cresp events.SQSEventResponse
	cold, _ = com.invoke(t, sqsEvent(f.kickARN, kicks), &cresp)
	if len(cresp.BatchItemFailures) != 0 {
		t.Fatalf("commit batchItemFailures = %+v, want none", cresp.BatchItemFailures)
	}
	f.deleteMessages(f.kickURL, kicks, nil)
	checkRows(t, f.readTable(), files)
	f.checkCommitted(files)
	if !strings.Contains(com.out.String(), `"_aws"`) {
		t.Errorf("the commit function printed no Embedded Metric Format line:\n%s", com.out.String())
	}
	// A warm invocation with a fresh kick finds nothing to do.
	kick := aws.String(fmt.Sprintf(`{"stream":%q,"reason":"manual","at":%q}`, streamID, time.Now().UTC().Format(time.RFC3339Nano)))
	warmKick := events.SQSEvent{Records: []events.SQSMessage{{MessageId: "warm-kick", Body: *kick, EventSource: "aws:sqs", EventSourceARN: f.kickARN}}}
	_, warm = com.invoke(t, warmKick, &cresp)
	if len(cresp.BatchItemFailures) != 0 {
		t.Fatalf("warm commit batchItemFailures = %+v", cresp.BatchItemFailures)
	}
	before := f.readTable()
	checkRows(t, before, files)
	report.ColdStart["commit"] = com.coldStart(t, cold, warm)
	report.Note = "processStartToFirstResponseMs: from starting aws-lambda-rie to the first invocation's response " +
		"(the RIE starts the bootstrap on the first invoke, so this includes RIE start-up, Init and the handler). " +
		"initDurationMs/firstInvokeDurationMs/warmInvokeDurationMs come from the RIE's REPORT lines; the RIE's Init " +
		"Duration does not cover the bootstrap's own start-up (Boot runs before the runtime asks for its first event, " +
		"which the RIE counts in the first invoke), so processStartToFirstResponseMs is the cold-start figure. " +
		"Host builds run under the RIE against moto on 127.0.0.1; sizes are of the deployable linux/arm64 binaries."
	writeOut(t, "e2e-lambda.json", report)
}

// lambdaReport is written to out/e2e-lambda.json.
type lambdaReport struct {
	RIE         string               `json:"rie"`
	Host        string               `json:"host"`
	BuildFlags  string               `json:"buildFlags"`
	BinaryBytes map[string]int64     `json:"binaryBytesLinuxArm64"`
	ColdStart   map[string]coldStart `json:"coldStart"`
	Note        string               `json:"note"`
}

// coldStart is one function's start-up measurements.
type coldStart struct {
	ProcessStartToFirstResponseMs float64 `json:"processStartToFirstResponseMs"`
	InitDurationMs                float64 `json:"initDurationMs"`
	FirstInvokeDurationMs         float64 `json:"firstInvokeDurationMs"`
	WarmInvokeDurationMs          float64 `json:"warmInvokeDurationMs"`
	WarmRoundTripMs               float64 `json:"warmRoundTripMs"`
}

// rieVersion is the module version scripts/rie.sh installed.
func rieVersion(t *testing.T, bin string) string {
	t.Helper()
	v, err := os.ReadFile(filepath.Join(filepath.Dir(bin), ".aws-lambda-rie.version"))
	if err != nil {
		t.Fatalf("RIE version stamp: %v", err)
	}
	return "github.com/aws/aws-lambda-runtime-interface-emulator@" + strings.TrimSpace(string(v))
}

// lambdaEnv is the environment a deployed function would get: the variables
// Boot reads, the emulator endpoint and static credentials.
func lambdaEnv(f *fixture) []string {
	var env []string
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, "AWS_") || strings.HasPrefix(kv, "AWS_CA_BUNDLE=") {
			env = append(env, kv)
		}
	}
	return append(env,
		lambdafn.EnvConfig+"="+f.configJSON,
		lambdafn.EnvStateTable+"="+f.stateTable,
		lambdafn.EnvKickQueueURL+"="+f.kickURL,
		lambdafn.EnvTimeMargin+"=10s",
		"AWS_ENDPOINT_URL="+f.endpoint,
		"AWS_REGION=us-east-1",
		"AWS_ACCESS_KEY_ID=test",
		"AWS_SECRET_ACCESS_KEY=test",
		"AWS_LAMBDA_FUNCTION_TIMEOUT=120",
		"AWS_LAMBDA_FUNCTION_MEMORY_SIZE=512",
	)
}

// goBuild builds functions/<fn> for goos/goarch into dir/<fn> as the
// Makefile builds Lambda bundles.
func goBuild(t *testing.T, root, dir, goos, goarch string, fns ...string) {
	t.Helper()
	args := []string{"build", "-trimpath", "-ldflags", "-s -w", "-tags", "lambda.norpc", "-o", dir + "/"}
	for _, fn := range fns {
		args = append(args, "./functions/"+fn)
	}
	cmd := exec.CommandContext(t.Context(), "go", args...)
	cmd.Dir = root
	cmd.Env = append(os.Environ(), "CGO_ENABLED=0", "GOOS="+goos, "GOARCH="+goarch)
	start := time.Now()
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("go %s (%s/%s): %v\n%s", strings.Join(args, " "), goos, goarch, err, out)
	}
	t.Logf("built %v for %s/%s in %v", fns, goos, goarch, time.Since(start).Round(time.Millisecond))
}

func scriptOutput(t *testing.T, path string) string {
	t.Helper()
	out, err := exec.CommandContext(t.Context(), path).Output()
	if err != nil {
		var stderr []byte
		if ee, ok := err.(*exec.ExitError); ok {
			stderr = ee.Stderr
		}
		t.Fatalf("%s: %v\n%s", path, err, stderr)
	}
	return strings.TrimSpace(string(out))
}

// rieProc is a running aws-lambda-rie with one bootstrap.
type rieProc struct {
	name    string
	url     string
	out     *syncBuffer
	started time.Time
	cmd     *exec.Cmd
}

func freePort(t *testing.T) int {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port
}

// startRIE starts the emulator for bootstrap in its own process group
// (the RIE starts the bootstrap as its child) and stops the group when the
// test ends.
func startRIE(t *testing.T, name, rie, bootstrap string, env []string) *rieProc {
	t.Helper()
	api, rapi := freePort(t), freePort(t)
	p := &rieProc{name: name, url: fmt.Sprintf("http://127.0.0.1:%d/2015-03-31/functions/function/invocations", api), out: &syncBuffer{}}
	p.cmd = exec.Command(rie,
		"--runtime-interface-emulator-address", fmt.Sprintf("127.0.0.1:%d", api),
		"--runtime-api-address", fmt.Sprintf("127.0.0.1:%d", rapi),
		bootstrap)
	p.cmd.Dir = filepath.Dir(bootstrap)
	p.cmd.Env = env
	p.cmd.Stdout, p.cmd.Stderr = p.out, p.out
	p.cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	p.started = time.Now()
	if err := p.cmd.Start(); err != nil {
		t.Fatalf("starting %s: %v", rie, err)
	}
	t.Cleanup(func() {
		_ = syscall.Kill(-p.cmd.Process.Pid, syscall.SIGKILL)
		_ = p.cmd.Wait()
		if t.Failed() {
			t.Logf("%s under the RIE:\n%s", name, p.out.String())
		}
	})
	deadline := time.Now().Add(20 * time.Second)
	for {
		c, err := net.Dial("tcp", fmt.Sprintf("127.0.0.1:%d", api))
		if err == nil {
			c.Close()
			return p
		}
		if time.Now().After(deadline) {
			t.Fatalf("the RIE did not listen on port %d: %v\n%s", api, err, p.out.String())
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// invoke posts payload, decodes the response into out and returns the
// time from the RIE's start to the response and the request's round trip.
func (p *rieProc) invoke(t *testing.T, payload, out any) (sinceStart, roundTrip time.Duration) {
	t.Helper()
	body, err := json.Marshal(payload)
	if err != nil {
		t.Fatal(err)
	}
	req, err := http.NewRequestWithContext(t.Context(), http.MethodPost, p.url, bytes.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	sent := time.Now()
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatalf("invoke: %v\n%s", err, p.out.String())
	}
	defer resp.Body.Close()
	var raw bytes.Buffer
	if _, err := raw.ReadFrom(resp.Body); err != nil {
		t.Fatal(err)
	}
	sinceStart, roundTrip = time.Since(p.started), time.Since(sent)
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("invoke: HTTP %d: %s\n%s", resp.StatusCode, raw.String(), p.out.String())
	}
	if err := json.Unmarshal(raw.Bytes(), out); err != nil {
		t.Fatalf("invoke response %s: %v\n%s", raw.String(), err, p.out.String())
	}
	if strings.Contains(raw.String(), "errorMessage") {
		t.Fatalf("function error: %s\n%s", raw.String(), p.out.String())
	}
	return sinceStart, roundTrip
}

// millis is d in milliseconds with microsecond precision.
func millis(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }

// coldStart reads the RIE's REPORT lines (cold then warm invocation); cold
// is the time from the RIE's start to the first response, warm the round
// trip of the second invocation.
func (p *rieProc) coldStart(t *testing.T, cold, warm time.Duration) coldStart {
	t.Helper()
	reportLine := regexp.MustCompile(`REPORT RequestId: [^\t]*\t(?:Init Duration: ([0-9.]+) ms\t)?Duration: ([0-9.]+) ms`)
	var reports [][]string
	deadline := time.Now().Add(10 * time.Second)
	for {
		reports = reportLine.FindAllStringSubmatch(p.out.String(), -1)
		if len(reports) >= 2 || time.Now().After(deadline) {
			break
		}
		time.Sleep(20 * time.Millisecond)
	}
	if len(reports) < 2 || reports[0][1] == "" {
		t.Fatalf("expected two REPORT lines, the first with an Init Duration; RIE output:\n%s", p.out.String())
	}
	num := func(s string) float64 {
		v, err := strconv.ParseFloat(s, 64)
		if err != nil {
			t.Fatalf("REPORT value %q: %v", s, err)
		}
		return v
	}
	cs := coldStart{
		ProcessStartToFirstResponseMs: millis(cold),
		InitDurationMs:                num(reports[0][1]),
		FirstInvokeDurationMs:         num(reports[0][2]),
		WarmInvokeDurationMs:          num(reports[1][2]),
		WarmRoundTripMs:               millis(warm),
	}
	t.Logf("%s: process start to first response %.1f ms (Init Duration %.2f ms, first invoke %.2f ms), warm invoke %.2f ms",
		p.name, cs.ProcessStartToFirstResponseMs, cs.InitDurationMs, cs.FirstInvokeDurationMs, cs.WarmInvokeDurationMs)
	return cs
}
