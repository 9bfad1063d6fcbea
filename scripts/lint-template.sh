#!/usr/bin/env bash
# Lints the SAM template with the pinned tools from scripts/pyenv.sh:
#   1. cfn-lint, informational checks included (errors, warnings and I-level
#      findings all fail the script);
#   2. sam validate: the SAM translator expands AWS::Serverless::* resources
#      (catches bad event-source properties that cfn-lint misses);
#   3. sam validate --lint: cfn-lint as SAM CLI runs it;
#   4. (default template only) `make lambdas` under umask 077, then
#      `sam build` under umask 022 (it runs the Makefile's build-<LogicalId>
#      targets, so it rebuilds the same bootstraps): the zips must be
#      byte-identical across the two umasks, bootstrap mode 0755 in each zip,
#      and every .aws-sam/build/<Fn>/bootstrap the same bytes as
#      dist/<fn>/bootstrap; then cfn-lint on .aws-sam/build/template.yaml.
#      sam build needs Go and make only (no Docker, no --use-container).
# All three work offline and without AWS credentials: they need a region only
# (no managed-policy lookups, because the template uses no SAM policy
# templates or managed policies). SAM CLI's own weekly "newer version" check
# asks PyPI with a 5 s timeout and ignores failures, so it cannot fail a run.
# Telemetry is off. No rule is suppressed.
# Usage: scripts/lint-template.sh [template]   (default: template.yaml)
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
template="${1:-$root/template.yaml}"
bin=$("$root/scripts/pyenv.sh")
export AWS_DEFAULT_REGION="${AWS_DEFAULT_REGION:-us-east-1}"
export SAM_CLI_TELEMETRY=0

echo "== cfn-lint $("$bin/cfn-lint" --version | awk '{print $2}') $template"
"$bin/cfn-lint" --include-checks I -- "$template"
echo "== sam validate"
"$bin/sam" validate --template "$template"
echo "== sam validate --lint"
"$bin/sam" validate --lint --template "$template"
if [ -z "${1:-}" ]; then
  cd "$root"
  fns=(discovery:DiscoveryFunction backfill:BackfillFunction commit:CommitFunction maintenance:MaintenanceFunction)
  hashes() { for f in "${fns[@]}"; do sha256sum "dist/${f%%:*}.zip"; done; }
  echo "== make lambdas (umask 077)"
  (umask 077 && rm -rf dist && make -s lambdas >/dev/null)
  first=$(hashes)
  echo "== sam build (umask 022)"
  log=$(mktemp)
  (umask 022 && rm -rf dist .aws-sam && "$bin/sam" build >"$log" 2>&1) || { cat "$log" >&2; rm -f "$log"; exit 1; }
  rm -f "$log"
  second=$(hashes)
  if [ "$first" != "$second" ]; then
    printf 'zips differ between umask 077 and 022:\n%s\n--\n%s\n' "$first" "$second" >&2
    exit 1
  fi
  for f in "${fns[@]}"; do
    fn=${f%%:*} id=${f##*:}
    mode=$(zipinfo "dist/$fn.zip" bootstrap | awk '{print $1}')
    [ "$mode" = "-rwxr-xr-x" ] || { echo "dist/$fn.zip: bootstrap mode $mode, want -rwxr-xr-x" >&2; exit 1; }
    cmp "dist/$fn/bootstrap" ".aws-sam/build/$id/bootstrap" || { echo "sam build's $id differs from make lambdas' $fn" >&2; exit 1; }
    [ "$(stat -c %a ".aws-sam/build/$id/bootstrap")" = 755 ] || { echo ".aws-sam/build/$id/bootstrap is not mode 0755" >&2; exit 1; }
  done
  echo "$second"
  echo "== cfn-lint .aws-sam/build/template.yaml"
  "$bin/cfn-lint" --include-checks I -- .aws-sam/build/template.yaml
fi
echo "== JSON built with !Sub (dashboard body, TRIBUTARY_OPTIONS)"
"$bin/python" - "$template" <<'PY'
# cfn-lint does not parse JSON assembled by Fn::Sub. Substitute every
# ${...} placeholder with a plain value and check that the result parses,
# for every combination of the conditions the options string depends on.
import itertools, json, re, sys
from samtranslator.yaml_helper import yaml_parse

tpl = yaml_parse(open(sys.argv[1]).read())

def fill(text, values=None):
    values = values or {}
    return re.sub(r"\$\{([^}]+)\}", lambda m: values.get(m.group(1), "x"), text)

body = tpl["Resources"]["Dashboard"]["Properties"]["DashboardBody"]["Fn::Sub"]
dash = json.loads(fill(body))
assert dash["widgets"], "dashboard has no widgets"

opts = tpl["Globals"]["Function"]["Environment"]["Variables"]["TRIBUTARY_OPTIONS"]["Fn::Sub"]
fmt, parts = opts
conds = ("Bytes", "Move", "Bad")
for ons in itertools.product([True, False], repeat=len(conds)):
    vals = {}
    for name, on in zip(conds, ons):
        branch = parts[name]["Fn::If"]
        vals[name] = fill(branch[1]["Fn::Sub"]) if on else branch[2]
    vals.update(Format="json", MaxFilesPerTrigger="1000", CleanSource="OFF",
                IgnoreCorruptFiles="false", IgnoreMissingFiles="true")
    decoded = json.loads(fill(fmt, vals))
    assert decoded["cloudFiles.format"] == "json", decoded
    assert decoded["ignoreMissingFiles"] == "true", decoded
print("dashboard widgets:", len(dash["widgets"]), "- options JSON:", 2 ** len(conds), "combinations parse")
PY
echo "template lint: OK"
