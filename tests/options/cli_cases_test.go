package options_test

import (
	"errors"
	"os"
	"strings"
	"testing"

	"github.com/tributary-io/tributary/infra/streams"
)

// cliCases are the behavioural cases of the cli area (owner: helper robust).
func cliCases() []optionCase {
	return []optionCase{
		{name: "trigger once warns that Trigger.Once is deprecated", options: []string{"trigger"}, run: func(t *testing.T) {
			p := newPipe(t)
			for trig, warns := range map[string]bool{"once": true, "availableNow": false} {
				s, err := p.load(map[string]string{"trigger": trig})
				if err != nil {
					t.Fatal(err)
				}
				got := strings.Join(s.Warnings, "\n")
				if warned := strings.Contains(got, "deprecated") && strings.Contains(got, "availableNow"); warned != warns {
					t.Errorf("trigger %s: warnings %q, want a deprecation warning naming availableNow: %v", trig, got, warns)
				}
			}
		}},
		{name: "useNotifications=true is refused by the listing runtime before anything is written", options: []string{"cloudFiles.useNotifications"}, run: func(t *testing.T) {
			p := newPipe(t)
			p.write("a.json", `{"a":"x"}`+"\n")
			if _, err := p.run(map[string]string{"cloudFiles.useNotifications": "true"}); !errors.Is(err, streams.ErrWrongRuntime) {
				t.Fatalf("run: %v, want refused", err)
			}
			for _, dir := range []string{p.table, p.checkpoint} {
				if _, err := os.Stat(dir); !os.IsNotExist(err) {
					t.Errorf("the refused run created %s (%v)", dir, err)
				}
			}
			p.mustRun(map[string]string{"cloudFiles.useNotifications": "false"})
			if len(p.rows()) != 1 {
				t.Errorf("listing run: %d rows", len(p.rows()))
			}
		}},
	}
}
