// Command tributary runs Tributary streams locally (the embedded default:
// local directory → local Delta table, no AWS) or against AWS, and inspects
// their state and tables.
//
//	tributary run      --source DIR --table DIR --checkpoint DIR [--option k=v]...
//	tributary run      --config FILE [--stream ID]
//	tributary state    CHECKPOINT_DIR [--format table|json|csv] [--state PENDING,...]
//	tributary describe TABLE [--json]
//	tributary history  TABLE [--json] [--limit N]
//	tributary refresh  (run's flags) [--no-run]
//	tributary reset-checkpoint (run's flags) [--no-run]
//	tributary optimize TABLE [--target-size SIZE] [--partition col=value]... [--dry-run] [--json]
//	tributary vacuum   TABLE [--retain DURATION] [--unsafe-retention] [--dry-run] [--json]
//	tributary cleanup-log TABLE [--retain DURATION] [--dry-run] [--json]
package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/signal"
	"syscall"

	"github.com/tributary-io/tributary/infra/gcpace"
)

const usage = `usage:
  tributary run      --source LOC --table LOC --checkpoint LOC [--option key=value]... [--trigger availableNow|once|processingTime=INTERVAL]
  tributary run      --config FILE [--stream ID]
  tributary state    CHECKPOINT [--stream ID] [--format table|json|csv] [--state PENDING,CLAIMED,COMMITTED,SKIPPED] [--path-prefix P]
  tributary describe TABLE [--json]
  tributary history  TABLE [--json] [--limit N]
  tributary refresh  (run's flags) [--no-run]   full refresh: empty the table, forget the checkpoint, ingest again
  tributary reset-checkpoint (run's flags) [--no-run]   forget the checkpoint only (rows may be written twice)
  tributary optimize TABLE [--target-size SIZE] [--partition col=value]... [--dry-run] [--json]
  tributary vacuum   TABLE [--retain DURATION] [--unsafe-retention] [--dry-run] [--json]
  tributary cleanup-log TABLE [--retain DURATION] [--dry-run] [--json]

LOC is a local directory or an s3://bucket/prefix URL (AWS credentials and
TRIBUTARY_STATE_TABLE are then taken from the environment).
TRIBUTARY_TRACE=FILE writes a Go execution trace of the command (read it
with go tool trace, or cmd/traceidle), TRIBUTARY_CPUPROFILE=FILE a CPU
profile (go tool pprof).
`

func main() {
	// The collector paced by the live heap: up to GOGC=200 while it is
	// small (many small files), the default from 40 MiB (infra/gcpace).
	gcpace.SmallHeap(os.Getenv)
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	os.Exit(run(ctx, os.Args[1:], os.Stdout, os.Stderr))
}

// run executes one command and returns the process exit code.
func run(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	if len(args) == 0 {
		fmt.Fprint(stderr, usage)
		return 2
	}
	logger := slog.New(slog.NewJSONHandler(stderr, &slog.HandlerOptions{Level: slog.LevelWarn}))
	for _, p := range debugOutputs() {
		path := os.Getenv(p.env)
		if path == "" {
			continue
		}
		stopIt, err := startOutput(p.env, path, p.start, p.stop)
		if err != nil {
			fmt.Fprintf(stderr, "tributary: %v\n", err)
			return 1
		}
		defer func() {
			if err := stopIt(); err != nil {
				fmt.Fprintf(stderr, "tributary: %s: %v\n", p.env, err)
			}
		}()
	}
	var err error
	switch args[0] {
	case "run":
		err = cmdRun(ctx, args[1:], stdout, stderr, logger)
	case "state":
		err = cmdState(ctx, args[1:], stdout, logger)
	case "describe":
		err = cmdDescribe(ctx, args[1:], stdout)
	case "history":
		err = cmdHistory(ctx, args[1:], stdout)
	case "refresh":
		err = cmdRefresh(ctx, "refresh", true, args[1:], stdout, stderr, logger)
	case "reset-checkpoint":
		err = cmdRefresh(ctx, "reset-checkpoint", false, args[1:], stdout, stderr, logger)
	case "optimize":
		err = cmdOptimize(ctx, args[1:], stdout)
	case "vacuum":
		err = cmdVacuum(ctx, args[1:], stdout)
	case "cleanup-log":
		err = cmdCleanupLog(ctx, args[1:], stdout)
	case "help", "-h", "--help":
		fmt.Fprint(stdout, usage)
		return 0
	default:
		err = fmt.Errorf("%w: unknown command %q", errUsage, args[0])
	}
	if err == nil {
		return 0
	}
	fmt.Fprintf(stderr, "tributary: %v\n", err)
	if errors.Is(err, errUsage) {
		fmt.Fprint(stderr, usage)
		return 2
	}
	return 1
}

var errUsage = errors.New("usage")
