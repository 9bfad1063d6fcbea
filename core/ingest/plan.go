package ingest

import "github.com/tributary-io/tributary/core/ingest/batchplan"

// Plan is a sealed batch: the exact files batch BatchID ingests
// (batchplan.Plan).
type Plan = batchplan.Plan

// PlanFile is one input file of a plan (batchplan.PlanFile).
type PlanFile = batchplan.PlanFile

// Limits bound one batch (cloudFiles.maxFilesPerTrigger /
// maxBytesPerTrigger; batchplan.Limits).
type Limits = batchplan.Limits
