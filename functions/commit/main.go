// Command commit is the Tributary commit Lambda function: it runs a stream's batches into its Delta table when kicked (one at a time per stream).
// A manual invocation {"action":"refresh"|"reset-checkpoint","stream":"ID"} queues a reset of the stream (docs/refresh.md).
// It converts files (itself, or as one of a batch's converters: docs/fanout.md), so it runs with the
// garbage collector paced for conversion (infra/gcpace: GOGC=400 and a memory limit of 75 % of the
// function's memory, unless GOGC or GOMEMLIMIT is set).
package main

import (
	"os"

	"github.com/aws/aws-lambda-go/lambda"

	"github.com/tributary-io/tributary/infra/gcpace"
	"github.com/tributary-io/tributary/infra/lambdafn"
)

func main() {
	gcpace.Apply(os.Getenv)
	app := lambdafn.MustBoot()
	lambda.Start(app.HandleCommitInvoke)
}
