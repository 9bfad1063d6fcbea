// Package options_test proves the option rule of issue 6 black-box: every
// option Tributary honours changes what a real stream does (a behavioural
// case here fails if the option were ignored), and every other option is
// refused at load time with "not supported yet".
//
// A stream runs in-process through infra/streams, exactly as the CLI wires
// it: a local source directory, a local Delta table, the embedded state
// store. Cases are grouped by area, one file and one function per area
// (coreCases, readerCases, scanCases, discoveryCases, sinkCases, cliCases);
// registry_test.go checks the whole registry against them.
package options_test
