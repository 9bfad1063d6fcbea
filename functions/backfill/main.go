// Command backfill is the Tributary backfill Lambda function: it lists each stream's source on a schedule and registers files whose events were lost.
package main

import (
	"github.com/aws/aws-lambda-go/lambda"

	"github.com/tributary-io/tributary/infra/lambdafn"
)

func main() {
	app := lambdafn.MustBoot()
	lambda.Start(app.HandleBackfill)
}
