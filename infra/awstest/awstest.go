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
	"fmt"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
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
}

// Stop ends the emulator if this process started it.
func (s *Server) Stop() {
	if s != nil && s.cmd != nil && s.cmd.Process != nil {
		_ = s.cmd.Process.Kill()
		_ = s.cmd.Wait()
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
	// moto's server wrapped so that conditional writes are atomic, as in
	// the real services (scripts/moto_atomic.py).
	python := filepath.Join(strings.TrimSpace(string(out)), "python")
	script := filepath.Join(root, "scripts", "moto_atomic.py")
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, err
	}
	port := l.Addr().(*net.TCPAddr).Port
	l.Close()
	cmd := exec.Command(python, script, "-H", "127.0.0.1", "-p", fmt.Sprint(port))
	cmd.Stdout, cmd.Stderr = nil, nil
	// The emulator must not see the tests' AWS settings (a t.Setenv made
	// before the first Endpoint call would otherwise leak into it).
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, "AWS_") {
			cmd.Env = append(cmd.Env, kv)
		}
	}
	dieWithParent(cmd)
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("awstest: starting moto_server: %w", err)
	}
	s := &Server{URL: fmt.Sprintf("http://127.0.0.1:%d", port), cmd: cmd}
	deadline := time.Now().Add(60 * time.Second)
	for time.Now().Before(deadline) {
		resp, err := http.Get(s.URL + "/moto-api/")
		if err == nil {
			resp.Body.Close()
			return s, nil
		}
		time.Sleep(100 * time.Millisecond)
	}
	s.Stop()
	return nil, fmt.Errorf("awstest: moto_server did not answer on %s", s.URL)
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
