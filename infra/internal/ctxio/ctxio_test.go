package ctxio

import (
	"bytes"
	"context"
	"errors"
	"strings"
	"testing"
	"time"
)

type failWriter struct{}

func (failWriter) Write([]byte) (int, error) { return 0, errors.New("disk full") }

func TestCopy(t *testing.T) {
	var b bytes.Buffer
	n, err := Copy(context.Background(), &b, strings.NewReader(strings.Repeat("x", 100)), 7)
	if err != nil || n != 100 || b.Len() != 100 {
		t.Fatalf("n=%d err=%v len=%d", n, err, b.Len())
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := Copy(ctx, &b, strings.NewReader("x"), 7); !errors.Is(err, context.Canceled) {
		t.Fatalf("cancelled copy: %v", err)
	}
	if _, err := Copy(context.Background(), failWriter{}, strings.NewReader("x"), 7); err == nil || !strings.Contains(err.Error(), "writing") {
		t.Fatalf("write error: %v", err)
	}
}

func TestSleep(t *testing.T) {
	if err := Sleep(context.Background(), time.Millisecond); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if err := Sleep(ctx, time.Hour); !errors.Is(err, context.Canceled) {
		t.Fatalf("cancelled sleep: %v", err)
	}
}
