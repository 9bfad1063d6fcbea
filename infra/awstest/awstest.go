// Package awstest gives tests an AWS-compatible endpoint and SDK config.
//
// If TRIBUTARY_TEST_ENDPOINT is set (LocalStack as `make localstack` starts
// it, a shared moto server), or else AWS_ENDPOINT_URL, that endpoint is used
// as is. Otherwise Endpoint starts a moto server from the project's pinned
// virtualenv (scripts/pyenv.sh) on a free loopback port, once per test
// binary, and stops it when the binary exits (see Main).
package awstest

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	awshttp "github.com/aws/aws-sdk-go-v2/aws/transport/http"
	"github.com/aws/aws-sdk-go-v2/config"
	"github.com/aws/aws-sdk-go-v2/credentials"
)

// Server is a running emulator.
type Server struct {
	// URL is the endpoint, e.g. http://127.0.0.1:41234.
	URL string
	cmd *exec.Cmd
	// exited is closed once cmd has exited (its Wait returned).
	exited chan struct{}
}

// Stop ends the emulator if this process started it.
func (s *Server) Stop() {
	if s != nil && s.cmd != nil && s.cmd.Process != nil {
		_ = s.cmd.Process.Kill()
		<-s.exited
	}
}

// repoRoot finds the module root from this source file's location.
func repoRoot() string {
	_, file, _, _ := runtime.Caller(0)
	return filepath.Clean(filepath.Join(filepath.Dir(file), "..", ".."))
}

// EndpointEnv names the variable that points the tests at an emulator that
// is already running (it wins over AWS_ENDPOINT_URL).
const EndpointEnv = "TRIBUTARY_TEST_ENDPOINT"

// External returns the endpoint the environment names (TRIBUTARY_TEST_ENDPOINT,
// else AWS_ENDPOINT_URL), or "" when the tests start their own moto server.
func External() string {
	if u := os.Getenv(EndpointEnv); u != "" {
		return u
	}
	return os.Getenv("AWS_ENDPOINT_URL")
}

// Start returns the endpoint the environment names (see External) or starts
// a moto server.
func Start() (*Server, error) {
	if u := External(); u != "" {
		return &Server{URL: u}, nil
	}
	root := repoRoot()
	out, err := exec.Command(filepath.Join(root, "scripts", "pyenv.sh")).Output()
	if err != nil {
		return nil, fmt.Errorf("awstest: preparing python env: %w", err)
	}
	python := filepath.Join(strings.TrimSpace(string(out)), "python")
	var errs []error
	for range 5 {
		port, err := freePort()
		if err != nil {
			return nil, err
		}
		s, err := startMoto(root, python, port)
		if err == nil {
			return s, nil
		}
		errs = append(errs, err)
	}
	return nil, errors.Join(errs...)
}

// freePort returns a port on 127.0.0.1 that was free a moment ago.
func freePort() (int, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, err
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port, nil
}

// startMoto starts one moto server on port and waits until it answers.
// The port was free when chosen, but another test process may take it
// before moto binds it, and that process's server would then answer: the
// server is known by a token of its own (GET /_tributary/token), and a
// server that exits (it could not bind the port) is an error.
func startMoto(root, python string, port int) (*Server, error) {
	// moto's server wrapped so that conditional writes are atomic, as in
	// the real services (scripts/moto_atomic.py).
	script := filepath.Join(root, "scripts", "moto_atomic.py")
	token := strconv.FormatInt(time.Now().UnixNano(), 36) + "-" + strconv.Itoa(os.Getpid())
	cmd := exec.Command(python, script, "-H", "127.0.0.1", "-p", fmt.Sprint(port), "--token", token)
	cmd.Stdout, cmd.Stderr = nil, nil
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, "AWS_") {
			cmd.Env = append(cmd.Env, kv)
		}
	}
	dieWithParent(cmd)
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("awstest: starting moto_server: %w", err)
	}
	exited := make(chan struct{})
	go func() {
		_ = cmd.Wait()
		close(exited)
	}()
	s := &Server{URL: fmt.Sprintf("http://127.0.0.1:%d", port), cmd: cmd, exited: exited}
	deadline := time.Now().Add(60 * time.Second)
	for time.Now().Before(deadline) {
		select {
		case <-exited:
			return nil, fmt.Errorf("awstest: moto_server on port %d exited before answering (port taken?)", port)
		default:
		}
		if answersWith(s.URL+"/_tributary/token", token) {
			return s, nil
		}
		time.Sleep(100 * time.Millisecond)
	}
	s.Stop()
	return nil, fmt.Errorf("awstest: moto_server did not answer on %s", s.URL)
}

// answersWith reports whether GET url answers 200 with body want.
func answersWith(url, want string) bool {
	resp, err := http.Get(url)
	if err != nil {
		return false
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(io.LimitReader(resp.Body, 256))
	return err == nil && resp.StatusCode == http.StatusOK && string(b) == want
}

var (
	shared     *Server
	sharedErr  error
	sharedOnce sync.Once
)

// Endpoint returns the process-wide emulator, starting it on first use.
// Call Main from TestMain so it is stopped at exit.
func Endpoint(t testing.TB) string {
	t.Helper()
	sharedOnce.Do(func() { shared, sharedErr = Start() })
	if sharedErr != nil {
		t.Fatalf("AWS emulator unavailable: %v", sharedErr)
	}
	return shared.URL
}

// Main runs the tests and stops the shared emulator afterwards. Use it as
// `func TestMain(m *testing.M) { awstest.Main(m) }`.
func Main(m *testing.M) {
	code := m.Run()
	shared.Stop()
	os.Exit(code)
}

// Config returns an SDK config for the endpoint: static test credentials,
// us-east-1, the buildable HTTP client (honours AWS_CA_BUNDLE) and checksums
// only when required.
func Config(t testing.TB, endpoint string) aws.Config {
	t.Helper()
	cfg, err := config.LoadDefaultConfig(context.Background(),
		config.WithRegion("us-east-1"),
		config.WithCredentialsProvider(credentials.NewStaticCredentialsProvider("test", "test", "")),
		config.WithHTTPClient(awshttp.NewBuildableClient()),
		config.WithBaseEndpoint(endpoint),
		config.WithRequestChecksumCalculation(aws.RequestChecksumCalculationWhenRequired),
		config.WithResponseChecksumValidation(aws.ResponseChecksumValidationWhenRequired),
	)
	if err != nil {
		t.Fatalf("aws config: %v", err)
	}
	return cfg
}
