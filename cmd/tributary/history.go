package main

import (
	"bytes"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"strings"
	"text/tabwriter"

	"github.com/tributary-io/tributary/core/delta"
	"github.com/tributary-io/tributary/core/delta/history"
	"github.com/tributary-io/tributary/infra/streams"
)

// historyRow mirrors DESCRIBE HISTORY's columns, plus the commit's txn
// actions (a streaming writer's appId and batch version).
type historyRow struct {
	Version             int64          `json:"version"`
	Timestamp           string         `json:"timestamp"`
	UserID              any            `json:"userId,omitempty"`
	UserName            any            `json:"userName,omitempty"`
	Operation           string         `json:"operation"`
	OperationParameters map[string]any `json:"operationParameters"`
	ReadVersion         *int64         `json:"readVersion,omitempty"`
	IsolationLevel      string         `json:"isolationLevel,omitempty"`
	IsBlindAppend       *bool          `json:"isBlindAppend,omitempty"`
	OperationMetrics    map[string]any `json:"operationMetrics,omitempty"`
	UserMetadata        any            `json:"userMetadata,omitempty"`
	EngineInfo          string         `json:"engineInfo,omitempty"`
	ClientVersion       string         `json:"clientVersion,omitempty"`
	Txns                []txnRow       `json:"txns,omitempty"`
}

type txnRow struct {
	AppID   string `json:"appId"`
	Version int64  `json:"version"`
}

func cmdHistory(ctx context.Context, args []string, stdout io.Writer) error {
	fs := flag.NewFlagSet("history", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	asJSON := fs.Bool("json", false, "print JSON")
	limit := fs.Int("limit", 0, "show only the newest N commits")
	var loc string
	if len(args) > 0 && args[0] != "" && args[0][0] != '-' {
		loc, args = args[0], args[1:]
	}
	if err := fs.Parse(args); err != nil {
		return fmt.Errorf("%w: history: %v", errUsage, err)
	}
	if loc == "" && fs.NArg() == 1 {
		loc = fs.Arg(0)
	} else if fs.NArg() > 0 {
		return fmt.Errorf("%w: history takes one table location, got extra %q", errUsage, fs.Args())
	}
	if loc == "" {
		return fmt.Errorf("%w: history needs a table location", errUsage)
	}
	if *limit < 0 {
		return fmt.Errorf("%w: history: --limit %d must not be negative", errUsage, *limit)
	}
	e, err := env(ctx, nil, loc)
	if err != nil {
		return err
	}
	st, err := e.OpenExistingStore(loc) // read-only: creates nothing
	if err != nil {
		return fmt.Errorf("table %s: %w", loc, err)
	}
	defer streams.CloseStore(st)
	hist, err := history.Read(ctx, delta.NewTable(st), *limit)
	if err != nil {
		return fmt.Errorf("table %s: %w", loc, err)
	}
	rows := make([]historyRow, len(hist))
	for i, h := range hist {
		rows[i] = toHistoryRow(h)
	}
	if *asJSON {
		enc := json.NewEncoder(stdout)
		enc.SetEscapeHTML(false)
		enc.SetIndent("", "  ")
		return enc.Encode(rows)
	}
	return printHistory(stdout, rows)
}

func toHistoryRow(h history.Entry) historyRow {
	r := historyRow{Version: h.Version, Timestamp: h.Timestamp.UTC().Format("2006-01-02T15:04:05.000Z07:00"),
		OperationParameters: map[string]any{}, ClientVersion: h.ClientVersion()}
	if ci := h.CommitInfo; ci != nil {
		r.Operation = ci.Operation
		if ci.OperationParameters != nil {
			r.OperationParameters = ci.OperationParameters
		}
		r.ReadVersion, r.IsolationLevel, r.IsBlindAppend = ci.ReadVersion, ci.IsolationLevel, ci.IsBlindAppend
		r.OperationMetrics, r.EngineInfo = ci.OperationMetrics, ci.EngineInfo
		r.UserID, r.UserName, r.UserMetadata = ci.Extra["userId"], ci.Extra["userName"], ci.Extra["userMetadata"]
	}
	for _, t := range h.Txns {
		r.Txns = append(r.Txns, txnRow{AppID: t.AppID, Version: t.Version})
	}
	return r
}

// printHistory prints one line per commit, newest first.
func printHistory(w io.Writer, rows []historyRow) error {
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "VERSION\tTIMESTAMP\tOPERATION\tENGINE\tTXN\tPARAMETERS")
	for _, r := range rows {
		engine := r.EngineInfo
		if engine == "" {
			engine = r.ClientVersion
		}
		var txns []string
		for _, t := range r.Txns {
			txns = append(txns, fmt.Sprintf("%s=%d", t.AppID, t.Version))
		}
		fmt.Fprintf(tw, "%d\t%s\t%s\t%s\t%s\t%s\n", r.Version, r.Timestamp, orDash(r.Operation), orDash(engine),
			orDash(strings.Join(txns, ",")), compactJSON(r.OperationParameters))
	}
	if len(rows) == 0 {
		fmt.Fprintln(tw, "(no commits in the log)")
	}
	return tw.Flush()
}

func orDash(s string) string {
	if s == "" {
		return "-"
	}
	return strings.NewReplacer("\t", " ", "\n", " ").Replace(s)
}

func compactJSON(v map[string]any) string {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return fmt.Sprint(v)
	}
	return strings.TrimSpace(buf.String())
}
