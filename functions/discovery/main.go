// Command discovery is the Tributary discovery Lambda function: it registers the files named by S3 object-created events from SQS.
package main

import (
	"github.com/aws/aws-lambda-go/lambda"

	"github.com/tributary-io/tributary/infra/lambdafn"
)

func main() {
	app := lambdafn.MustBoot()
	lambda.Start(app.HandleDiscovery)
}
