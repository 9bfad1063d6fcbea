// Command example is a CDK app with two Tributary streams in one stack, each
// with its own source bucket, both writing their Delta tables into one lake
// bucket under their own prefixes.
//
//	make lambdas && cd cdk && go run ./example   # writes cdk.out/
//	cdk deploy --app cdk.out                     # with the AWS CDK CLI
package main

import (
	"fmt"
	"os"

	"github.com/aws/aws-cdk-go/awscdk/v2"
	"github.com/aws/jsii-runtime-go"

	tributary "github.com/tributary-io/tributary/cdk"
)

func main() {
	defer jsii.Close()
	app := awscdk.NewApp(&awscdk.AppProps{Outdir: jsii.String("cdk.out")})
	stack := awscdk.NewStack(app, jsii.String("TributaryExample"), nil)
	code := os.Getenv("TRIBUTARY_DIST") // where `make lambdas` put the zips
	if code == "" {
		code = "../dist"
	}
	tributary.NewStream(stack, "Orders", &tributary.StreamProps{
		StreamId:         "orders",
		SourceBucketName: "example-tributary-orders-landing",
		Format:           "json",
		TableBucket:      "example-tributary-lake",
		TablePrefix:      "orders/",
		CodeDir:          code,
	})
	tributary.NewStream(stack, "Clicks", &tributary.StreamProps{
		StreamId:           "clicks",
		SourceBucketName:   "example-tributary-clicks-landing",
		Format:             "csv",
		TableBucket:        "example-tributary-lake",
		TablePrefix:        "clicks/",
		MaxBytesPerTrigger: "1g",
		ExtraOptions:       map[string]string{"header": "true"},
		CodeDir:            code,
	})
	asm := app.Synth(nil)
	fmt.Println("synthesised to", *asm.Directory())
}
