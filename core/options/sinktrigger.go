package options

import "github.com/tributary-io/tributary/core/options/trigger"

// Trigger is a parsed trigger option (trigger.Trigger).
type Trigger = trigger.Trigger

// TriggerKind names a Structured Streaming trigger (trigger.Kind).
type TriggerKind = trigger.Kind

// Triggers Tributary runs (see package trigger).
const (
	TriggerProcessingTime = trigger.ProcessingTime
	TriggerAvailableNow   = trigger.AvailableNow
	TriggerOnce           = trigger.Once
)
