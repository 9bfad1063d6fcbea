// Package e2e holds the end-to-end tests of the AWS deployment. They run
// against the moto server emulator (infra/awstest), or against the endpoint
// in TRIBUTARY_TEST_ENDPOINT (`make localstack` points it at LocalStack in
// host mode; see localstack/README.md): a bucket whose
// notification configuration sends real S3 ObjectCreated events to an SQS
// queue with a dead-letter queue, a commit-kick FIFO queue and a DynamoDB
// state table. A driver plays the Lambda SQS poller around the real
// handlers of infra/lambdafn (and, in one test, around the real bootstrap
// binaries under the Lambda Runtime Interface Emulator), and the resulting
// Delta table is read back with an independent reader (delta-rs, from the
// pinned Python environment).
//
// The package has no non-test code; the measurements it takes (AWS calls
// per input file, binary sizes, cold starts) are written under out/.
package e2e
