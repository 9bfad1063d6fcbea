"""Renders template.yaml for one set of parameter values, for the CDK parity test.

Usage: sam_render.py TEMPLATE PARAMS_JSON  -> rendered template JSON on stdout.

The SAM translator expands AWS::Serverless::* (as `sam deploy` would), then
this script evaluates what CloudFormation would: Conditions, Fn::If,
Ref to parameters (and AWS::NoValue), Fn::Sub over parameters, and drops
resources whose Condition is false. References to resources and pseudo
parameters other than AWS::NoValue are left as they are.
"""
import copy, json, os, re, sys

from samtranslator.translator.transform import transform
from samtranslator.yaml_helper import yaml_parse


class NoPolicies:
    """The template uses no managed policies: the loader is never asked."""

    def load(self):
        raise AssertionError("template asked for managed policies")


NOVALUE = object()


def main():
    tpl = yaml_parse(open(sys.argv[1]).read())
    given = json.loads(sys.argv[2])
    params = {}
    for name, p in tpl.get("Parameters", {}).items():
        v = given.get(name, p.get("Default"))
        if v is None:
            sys.exit(f"parameter {name} has no value and no default")
        params[name] = str(v)
    # CodeUri must be an S3 location for the translator (sam package does this).
    for r in tpl["Resources"].values():
        if r["Type"] == "AWS::Serverless::Function":
            r["Properties"]["CodeUri"] = "s3://code-bucket/code.zip"
    os.environ.setdefault("AWS_DEFAULT_REGION", "us-east-1")  # the translator wants a region
    out = transform(copy.deepcopy(tpl), dict(params), NoPolicies())

    conds = {}

    def cond(name):
        if name not in conds:
            conds[name] = truth(out["Conditions"][name])
        return conds[name]

    def truth(c):
        (fn, arg), = c.items()
        if fn == "Fn::Equals":
            a, b = (ev(x) for x in arg)
            if isinstance(a, dict) or isinstance(b, dict):
                raise ValueError(f"condition {c} is not resolved: {a} {b}")
            return a == b
        if fn == "Fn::Not":
            return not truth(arg[0])
        if fn == "Fn::Or":
            return any(truth(x) for x in arg)
        if fn == "Fn::And":
            return all(truth(x) for x in arg)
        if fn == "Condition":
            return cond(arg)
        raise ValueError(f"condition {c}")

    def sub(text, extra):
        def one(m):
            k = m.group(1)
            if k in extra:
                v = extra[k]
            elif k in params:
                v = params[k]
            else:
                return m.group(0)
            if isinstance(v, dict) and list(v) == ["Ref"]:
                v = "${%s}" % v["Ref"]
            elif isinstance(v, dict) and list(v) == ["Fn::GetAtt"]:
                v = "${%s}" % ".".join(v["Fn::GetAtt"])
            if not isinstance(v, str):
                raise ValueError(f"Fn::Sub ${{{k}}} is not a string: {v}")
            return v
        return re.sub(r"\$\{([^}!]+)\}", one, text)

    def ev(x):
        if isinstance(x, list):
            return [y for y in (ev(i) for i in x) if y is not NOVALUE]
        if not isinstance(x, dict):
            return x
        if len(x) == 1:
            (k, v), = x.items()
            if k == "Ref":
                if v == "AWS::NoValue":
                    return NOVALUE
                if v in params:
                    return params[v]
                return x
            if k == "Fn::If":
                return ev(v[1] if cond(v[0]) else v[2])
            if k == "Fn::Sub":
                if isinstance(v, str):
                    return sub(v, {})
                text, extra = v
                extra = {n: ev(e) for n, e in extra.items()}
                return sub(text, extra)
            if k == "Condition" and isinstance(v, str):
                return cond(v)
            if k == "Fn::Split":
                sep, text = v[0], ev(v[1])
                if not isinstance(text, str):
                    raise ValueError(f"Fn::Split of {text}")
                return text.split(sep)
            if k == "Fn::Select":
                i, items = ev(v[0]), ev(v[1])
                return items[int(i)]
        res = {}
        for k, v in x.items():
            v = ev(v)
            if v is not NOVALUE:
                res[k] = v
        if x and not res:
            # Emptied by AWS::NoValue (SAM's TracingConfig: {Mode: !If [.., NoValue]}):
            # the same as leaving the property out.
            return NOVALUE
        return res

    resources = {}
    for name, r in out["Resources"].items():
        if "Condition" in r and not cond(r["Condition"]):
            continue
        r = {k: v for k, v in r.items() if k != "Condition"}
        resources[name] = ev(r)
    outputs = {}
    for name, o in out.get("Outputs", {}).items():
        if "Condition" in o and not cond(o["Condition"]):
            continue
        outputs[name] = ev(o)
    json.dump({"Resources": resources, "Outputs": outputs}, sys.stdout, indent=1, sort_keys=True)


main()
