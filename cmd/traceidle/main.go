// Command traceidle prints, for each trace region of the CLI's main
// goroutine, how long it lasted, how much processor time went unused
// meanwhile (and of that, how much with a goroutine ready to run) and how
// long the goroutine waited for fsyncs (internal/traceidle), from a trace
// the CLI wrote:
//
//	TRIBUTARY_TRACE=run.trace GOMAXPROCS=2 tributary run ...
//	go run ./cmd/traceidle -procs 2 run.trace
//
// -bucket 10ms adds the idle time per 10 ms from the run's start.
package main

import (
	"flag"
	"fmt"
	"io"
	"os"
	"time"

	"github.com/tributary-io/tributary/internal/traceidle"
)

func main() {
	if err := run(os.Args[1:], os.Stdout); err != nil {
		fmt.Fprintf(os.Stderr, "traceidle: %v\n", err)
		os.Exit(1)
	}
}

func run(args []string, out io.Writer) error {
	fs := flag.NewFlagSet("traceidle", flag.ContinueOnError)
	procs := fs.Int("procs", 0, "GOMAXPROCS of the traced run (required)")
	root := fs.String("root", "cli.load", "the region whose goroutine's regions are followed, counted from its beginning")
	bucket := fs.Duration("bucket", 0, "also print the idle time per this much time")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if fs.NArg() != 1 {
		return fmt.Errorf("want one trace file, got %d arguments", fs.NArg())
	}
	f, err := os.Open(fs.Arg(0))
	if err != nil {
		return err
	}
	defer f.Close()
	res, err := traceidle.Read(f, traceidle.Options{Procs: *procs, Root: *root, Bucket: *bucket})
	if err != nil {
		return fmt.Errorf("%s: %w", fs.Arg(0), err)
	}
	ms := func(d time.Duration) float64 { return float64(d) / 1e6 }
	fmt.Fprintf(out, "%-44s %10s %12s %12s %10s\n", "region", "wall ms", "idle P ms", "ready P ms", "fsync ms")
	for _, s := range res.Spans {
		fmt.Fprintf(out, "%-44s %10.1f %12.1f %12.1f %10.1f\n", s.Name, ms(s.Wall), ms(s.Idle), ms(s.Ready), ms(s.Sync))
	}
	fmt.Fprintf(out, "%-44s %10.1f %12.1f %12.1f %10.1f\n", "total", ms(res.Wall), ms(res.Idle), ms(res.Ready), ms(res.Sync))
	for i, b := range res.Buckets {
		fmt.Fprintf(out, "from %8.1f ms: idle P %6.1f ms\n", ms(time.Duration(i)**bucket), ms(b))
	}
	return nil
}
