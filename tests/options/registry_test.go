package options_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/tributary-io/tributary/core/ingest"
	"github.com/tributary-io/tributary/core/options"
)

// TestEveryOptionIsHonouredOrRefused is the option rule: an honoured
// option has at least one behavioural case, a refused one fails to load
// with "option NAME: not supported yet", whatever its value.
func TestEveryOptionIsHonouredOrRefused(t *testing.T) {
	covered := map[string]bool{}
	known := map[string]options.OptionDoc{}
	for _, d := range options.Catalog() {
		known[d.Name] = d
	}
	for _, c := range allCases() {
		for _, o := range c.options {
			d, ok := known[o]
			switch {
			case !ok:
				t.Errorf("case %q names option %q, which is not in the registry (use its documented spelling)", c.name, o)
			case d.Status != options.Honoured:
				t.Errorf("case %q proves option %s, which the registry refuses: mark it honoured", c.name, o)
			}
			covered[o] = true
		}
	}
	for _, d := range options.Catalog() {
		switch d.Status {
		case options.Honoured:
			if !covered[d.Name] {
				t.Errorf("option %s is honoured but no case in tests/options proves its effect: add one, or refuse it with refusedOpt", d.Name)
			}
		case options.Refused:
			err := loadRefused(t, d)
			if !errors.Is(err, options.ErrUnsupportedOption) && !strings.Contains(errString(err), "not supported yet") {
				t.Errorf("refused option %s loads (error %v), want \"not supported yet\"", d.Name, err)
				continue
			}
			if d.Scope != "delta source" && !strings.Contains(err.Error(), "option "+d.Name+": not supported yet") {
				t.Errorf("refused option %s: error %q does not say \"option %s: not supported yet\"", d.Name, err, d.Name)
			}
		default:
			t.Errorf("option %s has status %q", d.Name, d.Status)
		}
	}
}

func errString(err error) string {
	if err == nil {
		return ""
	}
	return err.Error()
}

// loadRefused loads a stream that sets the refused option d, with a
// format it applies to, and returns the load error.
func loadRefused(t *testing.T, d options.OptionDoc) error {
	t.Helper()
	p := newPipe(t)
	if d.Scope == "delta source" {
		// Values are still checked: load with the first one that parses.
		var err error
		for _, v := range []string{"1", "true", "2019-01-01"} {
			var s *options.Stream
			s, err = options.Parse(map[string]string{d.Name: v}, options.Locations{
				StreamID: "s", Source: p.src, Table: p.table, CheckpointLocation: p.checkpoint, SourceFormat: "delta",
			})
			if err == nil {
				_, err = ingest.ConfigFromOptions(s)
				return err
			}
		}
		return err
	}
	opts := map[string]string{d.Name: "true"}
	if len(d.Formats) > 0 {
		opts["cloudFiles.format"] = string(d.Formats[0])
	}
	_, err := p.load(opts)
	return err
}

// TestOptionCases runs every behavioural case.
func TestOptionCases(t *testing.T) {
	names := map[string]bool{}
	for _, c := range allCases() {
		if names[c.name] {
			t.Errorf("two cases are named %q", c.name)
		}
		names[c.name] = true
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			c.run(t)
		})
	}
}
