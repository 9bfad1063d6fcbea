package guard

import (
	"testing"

	"github.com/tributary-io/tributary/core/delta"
)

// TestOwnCommit: a commit is this stream's when its txn or the commitInfo
// Writer names the stream's appId (as CommitWriter writes it); another
// stream's commit, or a commit without either, is not.
func TestOwnCommit(t *testing.T) {
	g := &Guard{StreamID: "s", AppID: "app", SourceURI: "s3://b/in"}
	ci := func(w any) delta.Action {
		return delta.Action{CommitInfo: &delta.CommitInfo{Extra: map[string]any{CommitInfoKey: w}}}
	}
	tests := []struct {
		name string
		acts []delta.Action
		want bool
	}{
		{"own txn", []delta.Action{{Txn: &delta.Txn{AppID: "app", Version: 3}}}, true},
		{"own writer", []delta.Action{ci(g.CommitWriter())}, true},
		{"other txn", []delta.Action{{Txn: &delta.Txn{AppID: "other"}}}, false},
		{"other writer", []delta.Action{ci(map[string]any{"streamId": "x", "txnAppId": "other"})}, false},
		{"writer not an object", []delta.Action{ci("app")}, false},
		{"neither", []delta.Action{{CommitInfo: &delta.CommitInfo{}}}, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := g.OwnCommit(tt.acts); got != tt.want {
				t.Errorf("OwnCommit = %v, want %v", got, tt.want)
			}
		})
	}
	if w := (&Guard{StreamID: "s", AppID: "app"}).CommitWriter(); len(w) != 2 || w["streamId"] != "s" || w["txnAppId"] != "app" {
		t.Errorf("CommitWriter without a source = %v, want streamId and txnAppId only", w)
	}
}
