package e2e

import (
	"encoding/json"
	"fmt"
	"maps"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strings"
	"testing"
)

// This file renders template.yaml as CloudFormation would for fixed
// parameter values and physical resource names (the intrinsic functions
// the template uses: Ref, Fn::Sub, Fn::GetAtt, Fn::If, Fn::Join and the
// condition functions), and evaluates IAM policy documents: enough to
// check the roles against the calls the functions make (iam_test.go).

// Pseudo-parameter values of the rendered stack (moto's account).
const (
	cfnAccount   = "123456789012"
	cfnRegion    = "us-east-1"
	cfnPartition = "aws"
)

// cfnNoValue is AWS::NoValue: a map entry or list item rendered to it is dropped.
type cfnNoValueT struct{}

var cfnNoValue = cfnNoValueT{}

// cfnStack is a template with parameter values and physical names.
type cfnStack struct {
	t      *testing.T
	tpl    map[string]any
	params map[string]string
	// refs maps a resource's logical id to its Ref value; atts maps
	// "LogicalId.Attribute" to its Fn::GetAtt value.
	refs, atts map[string]string
	conds      map[string]bool
}

// loadTemplate parses template.yaml (short-form tags expanded) with the
// pinned SAM translator's parser.
func loadTemplate(t *testing.T) map[string]any {
	t.Helper()
	out, err := exec.Command(filepath.Join(repoRoot(t), "scripts", "pyenv.sh")).Output()
	if err != nil {
		t.Fatalf("scripts/pyenv.sh: %v", err)
	}
	py := filepath.Join(strings.TrimSpace(string(out)), "python")
	raw, err := exec.CommandContext(t.Context(), py, filepath.Join("testdata", "template_json.py"), filepath.Join(repoRoot(t), "template.yaml")).Output()
	if err != nil {
		t.Fatalf("template_json.py: %v", err)
	}
	var tpl map[string]any
	if err := json.Unmarshal(raw, &tpl); err != nil {
		t.Fatal(err)
	}
	return tpl
}

// newStack binds tpl to parameter values (defaults for the others) and
// physical names.
func newStack(t *testing.T, tpl map[string]any, params, refs, atts map[string]string) *cfnStack {
	t.Helper()
	s := &cfnStack{t: t, tpl: tpl, params: map[string]string{}, refs: refs, atts: atts, conds: map[string]bool{}}
	for name, p := range tpl["Parameters"].(map[string]any) {
		def, ok := p.(map[string]any)["Default"]
		if ok {
			s.params[name] = fmt.Sprint(def)
		}
	}
	for k, v := range params {
		if _, ok := tpl["Parameters"].(map[string]any)[k]; !ok {
			t.Fatalf("template has no parameter %s", k)
		}
		s.params[k] = v
	}
	for name, p := range tpl["Parameters"].(map[string]any) {
		v, ok := s.params[name]
		if !ok {
			t.Fatalf("parameter %s has no value and no default", name)
		}
		if allowed, ok := p.(map[string]any)["AllowedValues"].([]any); ok {
			found := false
			for _, a := range allowed {
				found = found || fmt.Sprint(a) == v
			}
			if !found {
				t.Fatalf("parameter %s=%q is not among its AllowedValues %v", name, v, allowed)
			}
		}
		if pat, ok := p.(map[string]any)["AllowedPattern"].(string); ok && !regexp.MustCompile("^(?:"+pat+")$").MatchString(v) {
			t.Fatalf("parameter %s=%q does not match its AllowedPattern %s", name, v, pat)
		}
	}
	for name, c := range tpl["Conditions"].(map[string]any) {
		s.conds[name] = s.truth(c)
	}
	return s
}

// resource returns a resource's definition, or nil when its Condition is false.
func (s *cfnStack) resource(id string) map[string]any {
	r, ok := s.tpl["Resources"].(map[string]any)[id].(map[string]any)
	if !ok {
		s.t.Fatalf("template has no resource %s", id)
	}
	if c, ok := r["Condition"].(string); ok && !s.conds[c] {
		return nil
	}
	return r
}

func (s *cfnStack) ref(name string) any {
	switch name {
	case "AWS::NoValue":
		return cfnNoValue
	case "AWS::AccountId":
		return cfnAccount
	case "AWS::Region":
		return cfnRegion
	case "AWS::Partition":
		return cfnPartition
	case "AWS::URLSuffix":
		return "amazonaws.com"
	}
	if v, ok := s.params[name]; ok {
		return v
	}
	if v, ok := s.refs[name]; ok {
		return v
	}
	s.t.Fatalf("Ref %s: no parameter or physical name", name)
	return nil
}

func (s *cfnStack) getAtt(name string) string {
	v, ok := s.atts[name]
	if !ok {
		s.t.Fatalf("Fn::GetAtt %s: no value given", name)
	}
	return v
}

var subVar = regexp.MustCompile(`\$\{([^}]*)\}`)

func (s *cfnStack) sub(text string, vars map[string]any) string {
	return subVar.ReplaceAllStringFunc(text, func(m string) string {
		name := m[2 : len(m)-1]
		switch {
		case strings.HasPrefix(name, "!"):
			return "${" + name[1:] + "}"
		case vars[name] != nil:
			return s.str(vars[name])
		case strings.Contains(name, ".") && !strings.HasPrefix(name, "AWS::"):
			return s.getAtt(name)
		}
		return s.str(s.ref(name))
	})
}

func (s *cfnStack) str(v any) string {
	str, ok := v.(string)
	if !ok {
		s.t.Fatalf("want a string, got %#v", v)
	}
	return str
}

// truth evaluates a condition expression.
func (s *cfnStack) truth(v any) bool {
	m, ok := v.(map[string]any)
	if !ok || len(m) != 1 {
		s.t.Fatalf("condition %#v", v)
	}
	for fn, arg := range m {
		switch fn {
		case "Condition":
			c, ok := s.tpl["Conditions"].(map[string]any)[arg.(string)]
			if !ok {
				s.t.Fatalf("no condition %v", arg)
			}
			return s.truth(c)
		case "Fn::Equals":
			a := arg.([]any)
			return fmt.Sprint(s.render(a[0])) == fmt.Sprint(s.render(a[1]))
		case "Fn::Not":
			return !s.truth(arg.([]any)[0])
		case "Fn::And", "Fn::Or":
			and := fn == "Fn::And"
			for _, c := range arg.([]any) {
				if s.truth(c) != and {
					return !and
				}
			}
			return and
		}
		s.t.Fatalf("condition function %s", fn)
	}
	return false
}

// render evaluates the intrinsic functions in v.
func (s *cfnStack) render(v any) any {
	switch x := v.(type) {
	case []any:
		out := []any{}
		for _, e := range x {
			if r := s.render(e); r != cfnNoValue {
				out = append(out, r)
			}
		}
		return out
	case map[string]any:
		if len(x) == 1 {
			for fn, arg := range x {
				switch fn {
				case "Ref":
					return s.ref(arg.(string))
				case "Fn::GetAtt":
					switch a := arg.(type) {
					case string:
						return s.getAtt(a)
					case []any:
						return s.getAtt(a[0].(string) + "." + a[1].(string))
					}
				case "Fn::Sub":
					switch a := arg.(type) {
					case string:
						return s.sub(a, nil)
					case []any:
						vars := map[string]any{}
						for k, e := range a[1].(map[string]any) {
							vars[k] = s.render(e)
						}
						return s.sub(a[0].(string), vars)
					}
				case "Fn::If":
					a := arg.([]any)
					if s.conds[a[0].(string)] {
						return s.render(a[1])
					}
					return s.render(a[2])
				case "Fn::Join":
					a := arg.([]any)
					var parts []string
					for _, e := range s.render(a[1]).([]any) {
						parts = append(parts, s.str(e))
					}
					return strings.Join(parts, a[0].(string))
				case "Fn::Split":
					a := arg.([]any)
					var out []any
					for _, p := range strings.Split(s.str(s.render(a[1])), a[0].(string)) {
						out = append(out, p)
					}
					return out
				case "Fn::Select":
					a := arg.([]any)
					list := s.render(a[1]).([]any)
					i := int(a[0].(float64))
					if i < 0 || i >= len(list) {
						s.t.Fatalf("Fn::Select index %d of %d items (CloudFormation fails the deployment)", i, len(list))
					}
					return list[i]
				}
				if strings.HasPrefix(fn, "Fn::") {
					s.t.Fatalf("intrinsic %s is not rendered by this test", fn)
				}
			}
		}
		out := map[string]any{}
		for k, e := range x {
			if r := s.render(e); r != cfnNoValue {
				out[k] = r
			}
		}
		return out
	}
	return v
}

// ---- IAM ----

// iamStatement is one statement of a rendered policy document.
type iamStatement struct {
	Sid       string
	Effect    string
	Actions   []string
	Resources []string
	// Condition maps an operator (StringLike, ...) to key -> values.
	Condition map[string]map[string][]string
}

// roleStatements returns the statements of every inline policy of a role
// and of every AWS::IAM::Policy the stack attaches to it (Roles: [!Ref
// role]; a policy of its own lets a function's grant name the function).
func (s *cfnStack) roleStatements(roleID string) []iamStatement {
	role := s.resource(roleID)
	if role == nil {
		s.t.Fatalf("role %s is not created", roleID)
	}
	props := s.render(role["Properties"]).(map[string]any)
	if _, ok := props["ManagedPolicyArns"]; ok {
		s.t.Fatalf("role %s has managed policies, which this test cannot read", roleID)
	}
	var docs []map[string]any
	for _, p := range props["Policies"].([]any) {
		docs = append(docs, p.(map[string]any)["PolicyDocument"].(map[string]any))
	}
	ids := slices.Sorted(maps.Keys(s.tpl["Resources"].(map[string]any)))
	for _, id := range ids {
		r := s.tpl["Resources"].(map[string]any)[id].(map[string]any)
		if r["Type"] != "AWS::IAM::Policy" || s.resource(id) == nil {
			continue
		}
		pp := r["Properties"].(map[string]any)
		for _, ref := range pp["Roles"].([]any) {
			if m, ok := ref.(map[string]any); ok && m["Ref"] == roleID {
				docs = append(docs, s.render(pp["PolicyDocument"]).(map[string]any))
			}
		}
	}
	var out []iamStatement
	for _, doc := range docs {
		for _, raw := range doc["Statement"].([]any) {
			m := raw.(map[string]any)
			st := iamStatement{Sid: fmt.Sprint(m["Sid"]), Effect: m["Effect"].(string), Actions: strList(m["Action"]), Resources: strList(m["Resource"])}
			if _, ok := m["NotAction"]; ok {
				s.t.Fatalf("role %s statement %s: NotAction is not evaluated by this test", roleID, st.Sid)
			}
			if c, ok := m["Condition"].(map[string]any); ok {
				st.Condition = map[string]map[string][]string{}
				for op, kv := range c {
					st.Condition[op] = map[string][]string{}
					for k, v := range kv.(map[string]any) {
						st.Condition[op][k] = strList(v)
					}
				}
			}
			out = append(out, st)
		}
	}
	return out
}

func strList(v any) []string {
	switch x := v.(type) {
	case string:
		return []string{x}
	case []any:
		var out []string
		for _, e := range x {
			out = append(out, fmt.Sprint(e))
		}
		return out
	}
	return nil
}

// iamCall is one authorisation request: an action on a resource with the
// condition keys the request carries (s3:prefix for ListBucket).
type iamCall struct {
	Action   string
	Resource string
	Keys     map[string]string
}

func (c iamCall) String() string {
	if len(c.Keys) == 0 {
		return c.Action + " " + c.Resource
	}
	keys := make([]string, 0, len(c.Keys))
	for k, v := range c.Keys {
		keys = append(keys, k+"="+v)
	}
	sort.Strings(keys)
	return c.Action + " " + c.Resource + " " + strings.Join(keys, ",")
}

// globMatch matches IAM wildcards: '*' any run of characters, '?' one.
func globMatch(pattern, s string, fold bool) bool {
	if fold {
		pattern, s = strings.ToLower(pattern), strings.ToLower(s)
	}
	var re strings.Builder
	re.WriteString("^")
	for _, r := range pattern {
		switch r {
		case '*':
			re.WriteString(".*")
		case '?':
			re.WriteString(".")
		default:
			re.WriteString(regexp.QuoteMeta(string(r)))
		}
	}
	re.WriteString("$")
	return regexp.MustCompile(re.String()).MatchString(s)
}

// matches reports whether the statement covers the call (action, resource
// and every condition; a condition key the call lacks does not match, as
// in IAM).
func (st iamStatement) matches(c iamCall, t *testing.T) bool {
	action, resource := false, false
	for _, a := range st.Actions {
		action = action || globMatch(a, c.Action, true)
	}
	for _, r := range st.Resources {
		resource = resource || globMatch(r, c.Resource, false)
	}
	if !action || !resource {
		return false
	}
	for op, kv := range st.Condition {
		for key, want := range kv {
			got, ok := c.Keys[key]
			if !ok {
				return false
			}
			hit := false
			for _, w := range want {
				switch op {
				case "StringLike", "ArnLike":
					hit = hit || globMatch(w, got, false)
				case "StringEquals", "ArnEquals":
					hit = hit || w == got
				default:
					t.Fatalf("statement %s: condition operator %s is not evaluated by this test", st.Sid, op)
				}
			}
			if !hit {
				return false
			}
		}
	}
	return true
}

// allowedBy returns the Allow statements that cover the call (none when it
// is denied: implicitly, or by an explicit Deny).
func allowedBy(stmts []iamStatement, c iamCall, t *testing.T) []iamStatement {
	var allow []iamStatement
	for _, st := range stmts {
		if !st.matches(c, t) {
			continue
		}
		if st.Effect == "Deny" {
			return nil
		}
		allow = append(allow, st)
	}
	return allow
}

// templateNotifications renders template.yaml with Notifications=mode for
// the fixture's bucket and prefix and returns the resources that mode
// creates (those whose Condition holds), by logical id, with their
// rendered properties.
func templateNotifications(t *testing.T, f *fixture, mode, topicARN string) map[string]map[string]any {
	t.Helper()
	params := map[string]string{
		"StreamId": streamID, "SourceBucketName": f.bucket, "SourcePrefix": sourcePrefix,
		"Format": "json", "Notifications": mode, "CreateSourceBucket": "true",
	}
	if mode != "S3" {
		params["CreateSourceBucket"] = "false" // an existing bucket
	}
	if topicARN != "" {
		params["SourceTopicArn"] = topicARN
	}
	s := newStack(t, loadTemplate(t), params,
		map[string]string{"EventsQueue": f.eventsURL},
		map[string]string{"EventsQueue.Arn": f.eventsARN})
	out := map[string]map[string]any{}
	for _, id := range []string{"SourceBucket", "ObjectCreatedRule", "SourceTopicSubscription"} {
		if r := s.resource(id); r != nil {
			props := r["Properties"].(map[string]any)
			if id == "SourceBucket" {
				// Only the notification configuration is rendered here.
				props = map[string]any{"NotificationConfiguration": props["NotificationConfiguration"]}
			}
			out[id] = s.render(props).(map[string]any)
		}
	}
	return out
}
