package options

import (
	"strings"

	"github.com/tributary-io/tributary/core/options/tableopts"
)

// tablePropOpt is a Delta table property given as a sink option under its
// Delta name: parse validates the value and returns its normal form, which
// is stored in Sink.TableProperties under the property's name.
func tablePropOpt(name string, parse func(v string) (string, error)) optSpec {
	return optSpec{
		name: name, scope: scopeSink,
		set: func(s *Stream, v string) error {
			n, err := parse(strings.TrimSpace(v))
			if err != nil {
				return err
			}
			if s.Sink.TableProperties == nil {
				s.Sink.TableProperties = map[string]string{}
			}
			s.Sink.TableProperties[name] = n
			return nil
		},
		get: func(s *Stream) (string, bool) {
			v, ok := s.Sink.TableProperties[name]
			return v, ok
		},
	}
}

// tableProperties are the Delta table properties given as options (package
// tableopts): the honoured ones, and well-known others refused.
func tableProperties() []optSpec {
	var out []optSpec
	for _, p := range tableopts.Honoured() {
		out = append(out, doc(tablePropOpt(p.Name, p.Parse), p.Default, p.Doc))
	}
	for _, name := range tableopts.Refused() {
		out = append(out, refusedOpt(name, scopeSink, nil, tableopts.Why))
	}
	return out
}
