package options

import "github.com/tributary-io/tributary/core/options/cloudfilesopts"

// CloudFiles are the Auto Loader options (cloudfilesopts.CloudFiles).
type CloudFiles = cloudfilesopts.CloudFiles

// SchemaEvolutionMode is a value of cloudFiles.schemaEvolutionMode
// (cloudfilesopts.SchemaEvolutionMode).
type SchemaEvolutionMode = cloudfilesopts.SchemaEvolutionMode

// Schema evolution modes (see package cloudfilesopts).
const (
	EvolveAddNewColumns                 = cloudfilesopts.EvolveAddNewColumns
	EvolveAddNewColumnsWithTypeWidening = cloudfilesopts.EvolveAddNewColumnsWithTypeWidening
	EvolveRescue                        = cloudfilesopts.EvolveRescue
	EvolveFailOnNewColumns              = cloudfilesopts.EvolveFailOnNewColumns
	EvolveNone                          = cloudfilesopts.EvolveNone
)

// CleanSource is a value of cloudFiles.cleanSource
// (cloudfilesopts.CleanSource).
type CleanSource = cloudfilesopts.CleanSource

// Clean-source modes, applied once a file's batch is committed.
const (
	CleanOff    = cloudfilesopts.CleanOff
	CleanDelete = cloudfilesopts.CleanDelete
	CleanMove   = cloudfilesopts.CleanMove
)

// DefaultRescuedDataColumn is the rescued data column's default name.
const DefaultRescuedDataColumn = cloudfilesopts.DefaultRescuedDataColumn

// MinMaxFileAge is the smallest cloudFiles.maxFileAge Auto Loader accepts.
const MinMaxFileAge = cloudfilesopts.MinMaxFileAge
