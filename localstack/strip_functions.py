"""Writes template.yaml without its Lambda functions, as JSON.

Usage: python strip_functions.py TEMPLATE OUT.json

LocalStack host mode cannot create AWS::Lambda::Function resources (see
localstack/README.md), so scripts/localstack-deploy.sh deploys this variant to
check everything else in the template on LocalStack's CloudFormation: every
AWS::Serverless::Function is removed, then every resource, output and
condition-free reference that depends on a removed resource (Ref, GetAtt, Sub,
DependsOn), until nothing refers to a removed name.
"""

import json
import re
import sys

from cfnlint.decode import cfn_yaml


def refs(node):
    """Yields every logical name node refers to."""
    if isinstance(node, dict):
        for k, v in node.items():
            if k == "Ref" and isinstance(v, str):
                yield v
            elif k == "Fn::GetAtt":
                yield (v.split(".")[0] if isinstance(v, str) else v[0])
            elif k == "Fn::Sub":
                s = v if isinstance(v, str) else v[0]
                for m in re.finditer(r"\$\{([A-Za-z0-9]+)(\.[^}]*)?\}", s):
                    yield m.group(1)
                if not isinstance(v, str):
                    yield from refs(v[1])
            elif k == "DependsOn":
                yield from ([v] if isinstance(v, str) else v)
            else:
                yield from refs(v)
    elif isinstance(node, list):
        for v in node:
            yield from refs(v)


def main():
    src, out = sys.argv[1], sys.argv[2]
    t = cfn_yaml.load(src)
    t = json.loads(json.dumps(t))  # plain dicts
    res = t["Resources"]
    removed = {n for n, r in res.items() if r["Type"] == "AWS::Serverless::Function"}
    changed = True
    while changed:
        changed = False
        for n, r in list(res.items()):
            if n not in removed and set(refs(r)) & removed:
                removed.add(n)
                changed = True
    for n in removed:
        del res[n]
    outputs = t.get("Outputs", {})
    for n, o in list(outputs.items()):
        if set(refs(o)) & removed:
            del outputs[n]
    with open(out, "w") as f:
        json.dump(t, f, indent=1)
    print("removed: " + " ".join(sorted(removed)))


if __name__ == "__main__":
    main()
