#!/usr/bin/env python3
"""The EventBridge rules of the *processed* template, resolved for one deployment, as JSON.

template.yaml goes through the two transforms CloudFormation applies (AWS::LanguageExtensions, as
SAM CLI implements it, then AWS::Serverless with SAM's own translator), so the rules SAM derives
from a function's EventBridgeRule/CloudWatchEvent events are read as CloudFormation creates them.
Each AWS::Events::Rule whose Condition holds for the given parameters is then resolved (Ref, Sub,
If, Select, Split, Join, FindInMap, the condition functions) and written as
{"id", "name", "state", "pattern"}; `pattern` is the EventPattern EventBridge receives.

  .venv/bin/python deploy/processed_template.py --stack gpufleet --account 123456789012 \\
      --param DrainDelivery=sqs --out target/rules-sqs.json

The event-ruler tier (EventRulesTest) runs every event fixture through these patterns.
"""
import argparse
import json
import os
import sys
from pathlib import Path

from samcli.lib.cfn_language_extensions.api import process_template
from samcli.lib.cfn_language_extensions.models import PseudoParameterValues
from samcli.yamlhelper import yaml_parse
from samtranslator.translator.managed_policy_translator import ManagedPolicyLoader
from samtranslator.translator.transform import transform

ROOT = Path(__file__).resolve().parent.parent


class NoManagedPolicies(ManagedPolicyLoader):
    """The template names no managed policy by name; resolving one would need AWS credentials."""

    def __init__(self):
        pass

    def load(self):
        return {}


class Resolver:
    def __init__(self, template, params, pseudo):
        self.template = template
        self.values = dict(pseudo)
        for name, p in template.get("Parameters", {}).items():
            value = params.get(name, p.get("Default", ""))
            if p.get("Type") == "CommaDelimitedList" and isinstance(value, str):
                value = value.split(",") if value else [""]
            self.values[name] = value
        self.conditions = {}

    def condition(self, name):
        if name not in self.conditions:
            self.conditions[name] = bool(self.resolve(self.template["Conditions"][name]))
        return self.conditions[name]

    def resolve(self, node):
        if isinstance(node, list):
            return [v for v in (self.resolve(x) for x in node) if v is not NO_VALUE]
        if not isinstance(node, dict):
            return node
        if len(node) == 1:
            (key, arg), = node.items()
            fn = FUNCTIONS.get(key)
            if fn:
                return fn(self, arg)
        out = {}
        for k, v in node.items():
            r = self.resolve(v)
            if r is not NO_VALUE:
                out[k] = r
        return out

    def ref(self, name):
        if name in self.values:
            return self.values[name]
        if name in self.template["Resources"]:
            return f"<{name}>"
        raise KeyError(f"unresolvable Ref {name}")

    def sub(self, arg):
        text, extra = (arg, {}) if isinstance(arg, str) else (arg[0], self.resolve(arg[1]))
        out, i = [], 0
        while i < len(text):
            j = text.find("${", i)
            if j < 0:
                out.append(text[i:])
                break
            k = text.index("}", j)
            out.append(text[i:j])
            name = text[j + 2:k]
            if name.startswith("!"):
                out.append("${" + name[1:] + "}")
            elif name in extra:
                out.append(str(extra[name]))
            elif "." in name:
                out.append(f"<{name}>")
            else:
                out.append(str(self.ref(name)))
            i = k + 1
        return "".join(out)


NO_VALUE = object()

FUNCTIONS = {
    "Ref": lambda r, a: NO_VALUE if a == "AWS::NoValue" else r.ref(a),
    "Fn::Sub": lambda r, a: r.sub(a),
    "Fn::If": lambda r, a: r.resolve(a[1] if r.condition(a[0]) else a[2]),
    "Fn::Equals": lambda r, a: r.resolve(a[0]) == r.resolve(a[1]),
    "Fn::Not": lambda r, a: not r.resolve(a[0]),
    "Fn::And": lambda r, a: all(r.resolve(x) for x in a),
    "Fn::Or": lambda r, a: any(r.resolve(x) for x in a),
    "Condition": lambda r, a: r.condition(a),
    "Fn::Join": lambda r, a: r.resolve(a[0]).join(str(x) for x in r.resolve(a[1])),
    "Fn::Select": lambda r, a: r.resolve(a[1])[int(r.resolve(a[0]))],
    "Fn::Split": lambda r, a: r.resolve(a[1]).split(r.resolve(a[0])),
    "Fn::Contains": lambda r, a: r.resolve(a[1]) in r.resolve(a[0]),
    "Fn::FindInMap": lambda r, a: r.template["Mappings"][r.resolve(a[0])][r.resolve(a[1])][
        r.resolve(a[2])],
    "Fn::GetAtt": lambda r, a: "<" + (a if isinstance(a, str) else ".".join(a)) + ">",
}


def processed(params, pseudo):
    raw = yaml_parse((ROOT / "template.yaml").read_text())
    expanded = process_template(raw, parameter_values=params, pseudo_parameters=PseudoParameterValues(
        region=pseudo["AWS::Region"], account_id=pseudo["AWS::AccountId"],
        stack_id=pseudo["AWS::StackId"], stack_name=pseudo["AWS::StackName"],
        partition=pseudo["AWS::Partition"], url_suffix=pseudo["AWS::URLSuffix"]))
    expanded["Transform"] = [t for t in expanded.get("Transform", [])
                             if t != "AWS::LanguageExtensions"] \
        if isinstance(expanded.get("Transform"), list) else expanded.get("Transform")
    # as `sam package` leaves it: code in S3 (the translator takes no local path)
    for logical_id, res in expanded["Resources"].items():
        if res.get("Type") in ("AWS::Serverless::Function", "AWS::Serverless::LayerVersion"):
            key = "CodeUri" if res["Type"].endswith("Function") else "ContentUri"
            res["Properties"][key] = f"s3://gpufleet-artifacts/{logical_id}.zip"
    sam_params = dict(params)
    sam_params.update(pseudo)
    return transform(expanded, sam_params, NoManagedPolicies())


def pseudo_parameters(stack, account="123456789012", region="us-east-1"):
    os.environ["AWS_DEFAULT_REGION"] = region
    return {"AWS::StackName": stack, "AWS::AccountId": account, "AWS::Region": region,
            "AWS::Partition": "aws", "AWS::URLSuffix": "amazonaws.com",
            "AWS::StackId": f"arn:aws:cloudformation:{region}:{account}:stack/{stack}/x"}


def resolved(params, pseudo):
    """The processed template and a resolver for it (every resource, whatever its Condition)."""
    template = processed(params, pseudo)
    return template, Resolver(template, params, pseudo)


def rules(params, pseudo):
    template, r = resolved(params, pseudo)
    out = []
    for logical_id, res in template["Resources"].items():
        if res.get("Type") != "AWS::Events::Rule":
            continue
        if "Condition" in res and not r.condition(res["Condition"]):
            continue
        props = r.resolve(res.get("Properties", {}))
        if "EventPattern" not in props:
            continue
        out.append({
            "id": logical_id,
            "name": props.get("Name"),
            "state": props.get("State", "ENABLED"),
            "pattern": props["EventPattern"],
        })
    return sorted(out, key=lambda x: x["id"])


def main(argv):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--stack", default="gpufleet")
    ap.add_argument("--account", default="123456789012")
    ap.add_argument("--region", default="us-east-1")
    ap.add_argument("--param", action="append", default=[], help="Name=Value (repeatable)")
    ap.add_argument("--out", help="file to write (default: stdout)")
    a = ap.parse_args(argv)
    params = dict(p.split("=", 1) for p in a.param)
    pseudo = pseudo_parameters(a.stack, a.account, a.region)
    doc = json.dumps({"stack": a.stack, "account": a.account, "region": a.region,
                      "parameters": params, "rules": rules(params, pseudo)}, indent=1)
    if a.out:
        Path(a.out).parent.mkdir(parents=True, exist_ok=True)
        Path(a.out).write_text(doc + "\n")
    else:
        print(doc)


if __name__ == "__main__":
    main(sys.argv[1:])
