// Command example is a CDK app with two Tributary streams in one stack: one
// on a bucket it creates (S3→SQS notifications), one on an existing bucket
// (EventBridge), both writing their Delta tables into one lake bucket under
// their own prefixes.
//
//	make cdk-synth                   # make lambdas, then `cdk synth` of this app into cdk/cdk.out
//	make cdk-deploy                  # `cdk deploy` of it (after `cdk bootstrap`)
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
	outdir := os.Getenv("CDK_OUTDIR") // set by `cdk synth`
	if outdir == "" {
		outdir = "cdk.out"
	}
	app := awscdk.NewApp(&awscdk.AppProps{Outdir: jsii.String(outdir)})
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
		StreamId:             "clicks",
		SourceBucketName:     "example-existing-clicks-bucket", // not created: events via EventBridge
		ExistingSourceBucket: true,
		Notifications:        tributary.NotifyEventBridge,
		Format:               "csv",
		TableBucket:          "example-tributary-lake",
		TablePrefix:          "clicks/",
		MaxBytesPerTrigger:   "1g",
		ExtraOptions:         map[string]string{"header": "true"},
		CodeDir:              code,
	})
	asm := app.Synth(nil)
	fmt.Println("synthesised to", *asm.Directory())
}
