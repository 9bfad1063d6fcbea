package ingest

import "github.com/tributary-io/tributary/core/ingest/progress"

// Progress is the record of one committed batch (progress.Progress).
type Progress = progress.Progress

// MetricsNamespace is the CloudWatch namespace of Tributary's metrics.
const MetricsNamespace = progress.MetricsNamespace
