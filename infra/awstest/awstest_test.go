package awstest

import (
	"net"
	"net/http"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestStartMotoNotFooledByAnotherServer: when the chosen port was taken
// by another process's server before moto could bind it, startMoto must
// not take that server for its own (as it did when any answer on
// /moto-api/ counted): it reports that its moto exited.
func TestStartMotoNotFooledByAnotherServer(t *testing.T) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	other := &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, _ = w.Write([]byte("another emulator"))
	})}
	go func() { _ = other.Serve(l) }()
	t.Cleanup(func() { _ = other.Close() })

	root := repoRoot()
	out, err := exec.Command(filepath.Join(root, "scripts", "pyenv.sh")).Output()
	if err != nil {
		t.Fatalf("python env: %v", err)
	}
	python := filepath.Join(strings.TrimSpace(string(out)), "python")
	s, err := startMoto(root, python, l.Addr().(*net.TCPAddr).Port)
	if err == nil {
		s.Stop()
		t.Fatalf("startMoto took the server already on the port for its own (%s)", s.URL)
	}
	if !strings.Contains(err.Error(), "exited before answering") {
		t.Fatalf("startMoto: %v, want its moto to have exited", err)
	}

	// A free port gives a server that answers its own token.
	port, err := freePort()
	if err != nil {
		t.Fatal(err)
	}
	s, err = startMoto(root, python, port)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Stop()
	resp, err := http.Get(s.URL + "/moto-api/")
	if err != nil {
		t.Fatalf("moto on %s: %v", s.URL, err)
	}
	resp.Body.Close()
}
