package lambdafn

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/ssm"
	ssmtypes "github.com/aws/aws-sdk-go-v2/service/ssm/types"
)

// paramStore is an in-memory ssm:GetParameter (the real call runs against
// moto in tests/e2e TestTemplateIAM).
type paramStore map[string]string

func (p paramStore) GetParameter(_ context.Context, in *ssm.GetParameterInput, _ ...func(*ssm.Options)) (*ssm.GetParameterOutput, error) {
	if in.WithDecryption == nil || !*in.WithDecryption {
		return nil, errors.New("asked without decryption")
	}
	v, ok := p[aws.ToString(in.Name)]
	if !ok {
		return nil, &ssmtypes.ParameterNotFound{Message: aws.String("not found")}
	}
	return &ssm.GetParameterOutput{Parameter: &ssmtypes.Parameter{Value: aws.String(v)}}, nil
}

func TestWithConfigParameter(t *testing.T) {
	const doc = `{"streams":[]}`
	store := paramStore{"/t/streams:3": doc, "/t/empty": "  "}
	tests := []struct {
		name, param, inline string
		want                string // "" = the document is served as EnvConfig
	}{
		{"pinned version", "/t/streams:3", "", ""},
		{"missing", "/t/nothing", "", `TRIBUTARY_CONFIG_PARAMETER="/t/nothing": reading the streams document`},
		{"empty", "/t/empty", "", "the parameter is empty"},
		{"both set", "/t/streams:3", doc, "are both set"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			base := func(k string) string {
				switch k {
				case EnvConfig:
					return tc.inline
				case EnvStateTable:
					return "state"
				}
				return ""
			}
			got, err := withConfigParameter(t.Context(), store, base, tc.param)
			if tc.want != "" {
				if err == nil || !strings.Contains(err.Error(), tc.want) {
					t.Fatalf("err = %v, want %q", err, tc.want)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if got(EnvConfig) != doc || got(EnvStateTable) != "state" {
				t.Fatalf("config %q, state table %q", got(EnvConfig), got(EnvStateTable))
			}
		})
	}
}
