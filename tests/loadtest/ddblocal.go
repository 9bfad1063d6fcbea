package main

import (
	"context"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"time"

	"net/url"

	"github.com/aws/aws-sdk-go-v2/aws"
	awsmiddleware "github.com/aws/aws-sdk-go-v2/aws/middleware"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/smithy-go/middleware"
	smithyhttp "github.com/aws/smithy-go/transport/http"
)

// dynamoDBLocal is a DynamoDB Local process this command started.
type dynamoDBLocal struct {
	url string
	cmd *exec.Cmd
}

// startDynamoDBLocal fetches DynamoDB Local if needed
// (scripts/dynamodb-local.sh), starts it in memory on a free loopback port
// and waits until it answers.
func startDynamoDBLocal(ctx context.Context) (*dynamoDBLocal, error) {
	out, err := exec.CommandContext(ctx, filepath.Join(repoRoot(), "scripts", "dynamodb-local.sh")).Output()
	if err != nil {
		return nil, fmt.Errorf("scripts/dynamodb-local.sh: %w", err)
	}
	dir := strings.TrimSpace(string(out))
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, err
	}
	port := l.Addr().(*net.TCPAddr).Port
	l.Close()
	cmd := exec.Command("java", "-Djava.library.path="+filepath.Join(dir, "DynamoDBLocal_lib"),
		"-jar", filepath.Join(dir, "DynamoDBLocal.jar"), "-inMemory", "-sharedDb", "-port", fmt.Sprint(port))
	cmd.Dir = dir
	logFile, err := os.CreateTemp("", "tributary-dynamodb-local-*.log")
	if err != nil {
		return nil, err
	}
	defer logFile.Close() // the child has its own descriptor
	cmd.Stdout, cmd.Stderr = logFile, logFile
	// Not left behind if this command dies.
	cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("starting DynamoDB Local (java): %w", err)
	}
	d := &dynamoDBLocal{url: fmt.Sprintf("http://127.0.0.1:%d", port), cmd: cmd}
	raw, err := awsConfig(ctx, d.url)
	if err != nil {
		d.stop()
		return nil, err
	}
	client := dynamodb.NewFromConfig(raw, func(o *dynamodb.Options) { o.BaseEndpoint = aws.String(d.url) })
	// The JVM starts slowly on a loaded machine.
	deadline := time.Now().Add(3 * time.Minute)
	for {
		_, err := client.ListTables(ctx, &dynamodb.ListTablesInput{})
		if err == nil {
			return d, nil
		}
		if time.Now().After(deadline) {
			d.stop()
			return nil, fmt.Errorf("DynamoDB Local did not answer on %s (its output: %s): %w", d.url, logFile.Name(), err)
		}
		time.Sleep(500 * time.Millisecond)
	}
}

// stop ends the process.
func (d *dynamoDBLocal) stop() {
	if d.cmd.Process != nil {
		_ = d.cmd.Process.Kill()
		_ = d.cmd.Wait()
	}
}

// route is SDK middleware that sends the DynamoDB calls of a client to
// DynamoDB Local; the other services stay on the emulator. (A base
// endpoint set in the config wins over AWS_ENDPOINT_URL_DYNAMODB, so the
// SDK's service-specific setting cannot do this.) It runs after the
// endpoint is resolved and before the request is signed.
func (d *dynamoDBLocal) route(stack *middleware.Stack) error {
	u, err := url.Parse(d.url)
	if err != nil {
		return err
	}
	return stack.Finalize.Insert(middleware.FinalizeMiddlewareFunc("loadtest.dynamoDBLocal", func(ctx context.Context, in middleware.FinalizeInput, next middleware.FinalizeHandler) (middleware.FinalizeOutput, middleware.Metadata, error) {
		if req, ok := in.Request.(*smithyhttp.Request); ok && awsmiddleware.GetServiceID(ctx) == "DynamoDB" {
			req.URL.Scheme, req.URL.Host = u.Scheme, u.Host
			req.Host = u.Host
		}
		return next.HandleFinalize(ctx, in)
	}), "Signing", middleware.Before)
}
