// Command commit is the Tributary commit Lambda function: it runs a stream's batches into its Delta table when kicked (one at a time per stream).
// A manual invocation {"action":"refresh"|"reset-checkpoint","stream":"ID"} queues a reset of the stream (docs/refresh.md).
package main

import (
	"github.com/aws/aws-lambda-go/lambda"

	"github.com/tributary-io/tributary/infra/lambdafn"
)

func main() {
	app := lambdafn.MustBoot()
	lambda.Start(app.HandleCommitInvoke)
}
