package events

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"strconv"
	"time"
)

// Kick reasons used by Tributary's functions. Reason is free text for logs and
// metrics; these constants keep the common values consistent.
const (
	// ReasonDiscovered: the discovery function registered new files.
	ReasonDiscovered = "discovered"
	// ReasonBackfill: the backfill function registered files whose events were lost.
	ReasonBackfill = "backfill"
	// ReasonContinue: the commit function stopped with work left (limits reached).
	ReasonContinue = "continue"
	// ReasonUpstream: the table a Delta-source stream reads received a
	// commit from another stream of the same deployment.
	ReasonUpstream = "upstream"
	// ReasonManual: an operator asked for a commit (CLI).
	ReasonManual = "manual"
	// ReasonStateAdopted: a function registered the files of the stream's
	// batch plans again in a new state table; the last batch waits for a
	// commit run to be replayed or finished.
	ReasonStateAdopted = "state-adopted"
)

// Kick actions: what the commit function does for a kick. The empty action
// is a commit run; the others reset the stream (core/refresh) in its kick
// group, so that no commit run of the stream overlaps them.
const (
	// ActionRefresh: a full refresh (one commit removes every file of the
	// table, the checkpoint and the file state are forgotten, the source is
	// listed and ingested again).
	ActionRefresh = "refresh"
	// ActionResetCheckpoint: forget the checkpoint and the file state, keep
	// the table's rows (rows are written twice).
	ActionResetCheckpoint = "reset-checkpoint"
)

// maxSQSID is the longest MessageGroupId / MessageDeduplicationId SQS accepts.
const maxSQSID = 128

// Kick asks the commit function to look at one stream: plan and commit the
// next batch if files are pending (or, with an Action, reset the stream). It is sent to the commit-kick SQS FIFO
// queue with MessageGroupId GroupID() (one group per stream, so commits for a
// stream are serialised) and MessageDeduplicationId DeduplicationID(window)
// (so that a burst of kicks within one window becomes one message).
// Correctness never depends on a kick arriving: a lost or duplicate kick only
// delays or repeats an idempotent commit attempt.
type Kick struct {
	// Stream is the stream id. Required.
	Stream string `json:"stream"`
	// Reason says why the kick was sent (see the Reason constants).
	Reason string `json:"reason,omitempty"`
	// At is when the kick was sent. Required.
	At time.Time `json:"at"`
	// Action is empty for a commit run, or ActionRefresh or
	// ActionResetCheckpoint (an operator's request, see docs/refresh.md).
	Action string `json:"action,omitempty"`
}

// Validate checks that the kick names a stream and a time.
func (k Kick) Validate() error {
	if k.Stream == "" {
		return malformed("stream", "missing")
	}
	if k.At.IsZero() {
		return malformed("at", "missing")
	}
	switch k.Action {
	case "", ActionRefresh, ActionResetCheckpoint:
	default:
		return malformed("action", "%q is not %q or %q", k.Action, ActionRefresh, ActionResetCheckpoint)
	}
	return nil
}

// Marshal encodes the kick as the JSON body of an SQS message.
func (k Kick) Marshal() ([]byte, error) {
	if err := k.Validate(); err != nil {
		return nil, fmt.Errorf("marshal kick: %w", err)
	}
	k.At = k.At.UTC()
	b, err := json.Marshal(k)
	if err != nil {
		return nil, fmt.Errorf("marshal kick for stream %q: %w", k.Stream, err)
	}
	return b, nil
}

// UnmarshalKick decodes an SQS message body written by Kick.Marshal. Unknown
// fields are ignored (forward compatibility); a missing stream or time, or a
// body that is not a JSON object, is an error wrapping ErrMalformed.
func UnmarshalKick(body []byte) (Kick, error) {
	var k Kick
	if err := json.Unmarshal(body, &k); err != nil {
		return Kick{}, fmt.Errorf("unmarshal kick: %w", malformed("", "invalid JSON: %v", err))
	}
	if err := k.Validate(); err != nil {
		return Kick{}, fmt.Errorf("unmarshal kick: %w", err)
	}
	k.At = k.At.UTC()
	return k, nil
}

// GroupID returns the SQS FIFO MessageGroupId for the kick: the stream id when
// it is a valid group id (at most 128 characters of printable ASCII), else a
// stable hash of it ("sha256-" and 64 hex digits). The same stream always
// maps to the same group.
func (k Kick) GroupID() string {
	if validSQSID(k.Stream) {
		return k.Stream
	}
	sum := sha256.Sum256([]byte(k.Stream))
	return "sha256-" + hex.EncodeToString(sum[:])
}

// DeduplicationID returns the SQS FIFO MessageDeduplicationId for the kick:
// a hash of the stream id and the start of the time window of length window
// that contains At. Kicks for one stream within the same window share the id,
// so SQS keeps only the first one (SQS remembers ids for 5 minutes, so a
// window longer than that collapses less than it says). A window <= 0 uses At
// itself, to the nanosecond.
func (k Kick) DeduplicationID(window time.Duration) string {
	at := k.At.UTC()
	if window > 0 {
		at = at.Truncate(window)
	}
	h := sha256.New()
	h.Write([]byte(k.Stream))
	h.Write([]byte{0})
	h.Write([]byte(strconv.FormatInt(at.UnixNano(), 10)))
	return hex.EncodeToString(h.Sum(nil))
}

// validSQSID reports whether s is a valid MessageGroupId: 1 to 128 characters,
// each alphanumeric or ASCII punctuation.
func validSQSID(s string) bool {
	if s == "" || len(s) > maxSQSID {
		return false
	}
	for i := 0; i < len(s); i++ {
		if c := s[i]; c <= ' ' || c > '~' {
			return false
		}
	}
	return true
}
