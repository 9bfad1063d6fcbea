// Command maintenance is the Tributary maintenance Lambda function: on a schedule it compacts each stream's table (OPTIMIZE), cleans its log and vacuums it.
package main

import (
	"github.com/aws/aws-lambda-go/lambda"

	"github.com/tributary-io/tributary/infra/lambdafn"
)

func main() {
	app := lambdafn.MustBoot()
	lambda.Start(app.HandleMaintenance)
}
