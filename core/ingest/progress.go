package ingest

import (
	"time"

	"github.com/tributary-io/tributary/core/ingest/progress"
)

// Progress is the record of one committed batch (progress.Progress).
type Progress = progress.Progress

// MetricsNamespace is the CloudWatch namespace of Tributary's metrics.
const MetricsNamespace = progress.MetricsNamespace

// perSecond divides n by d, 0 for a zero duration.
func perSecond(n int64, d time.Duration) float64 {
	if d <= 0 {
		return 0
	}
	return float64(n) / d.Seconds()
}
