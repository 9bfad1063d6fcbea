// Command commit is the Tributary commit Lambda function: it runs a stream's batches into its Delta table when kicked (one at a time per stream).
package main

import (
	"github.com/aws/aws-lambda-go/lambda"

	"github.com/tributary-io/tributary/infra/lambdafn"
)

func main() {
	app := lambdafn.MustBoot()
	lambda.Start(app.HandleCommit)
}
