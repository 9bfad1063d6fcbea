package evolve

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/tributary-io/tributary/core/delta"
	"github.com/tributary-io/tributary/core/ingest/batchplan"
	"github.com/tributary-io/tributary/core/ingest/convert"
	"github.com/tributary-io/tributary/core/ingest/identity"
	"github.com/tributary-io/tributary/core/ingest/schemalog"
	"github.com/tributary-io/tributary/core/options"
)

func TestEvolves(t *testing.T) {
	for mode, want := range map[options.SchemaEvolutionMode]bool{
		"":                          false,
		options.EvolveRescue:        false,
		options.EvolveNone:          false,
		options.EvolveAddNewColumns: true,
		options.EvolveAddNewColumnsWithTypeWidening: true,
		options.EvolveFailOnNewColumns:              true,
	} {
		if got := Evolves(mode); got != want {
			t.Errorf("Evolves(%q) = %v, want %v", mode, got, want)
		}
	}
}

// TestOnNewColumnsRefusals: failOnNewColumns fails naming the file and
// the columns; mergeSchema=false on an existing table fails before the
// schema history evolves. Neither reads a file.
func TestOnNewColumnsRefusals(t *testing.T) {
	nc := &convert.NewColumns{File: "in/a.json", Paths: []string{"extra"}}
	p := &batchplan.Plan{BatchID: 4, Files: []batchplan.PlanFile{{Path: "in/a.json"}}}
	tests := []struct {
		name string
		s    *Schemas
		want error
	}{
		{"failOnNewColumns", &Schemas{Mode: options.EvolveFailOnNewColumns}, ErrNewColumns},
		{"mergeSchema false", &Schemas{Mode: options.EvolveAddNewColumns, NoMergeSchema: true, Table: &delta.Snapshot{}}, ErrMergeSchemaOff},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := tt.s.OnNewColumns(context.Background(), nil, 0, nc, p)
			if !errors.Is(err, tt.want) || !strings.Contains(err.Error(), "in/a.json") || !strings.Contains(err.Error(), "extra") {
				t.Fatalf("err %v, want %v naming the file and the column", err, tt.want)
			}
		})
	}
}

func TestCorruptHistory(t *testing.T) {
	ce := &schemalog.CorruptError{Key: "_schemas/3", Err: errors.New("bad json")}
	err := CorruptHistory(ce)
	if !errors.Is(err, identity.ErrFullRefreshNeeded) || !strings.Contains(err.Error(), "_schemas/3") || !strings.Contains(err.Error(), identity.RefreshHowTo) {
		t.Errorf("CorruptHistory(corrupt) = %v", err)
	}
	other := errors.New("network")
	if CorruptHistory(other) != other || CorruptHistory(nil) != nil {
		t.Error("CorruptHistory changed an error that is not a corrupt history")
	}
}
