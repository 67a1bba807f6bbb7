#!/usr/bin/env python3
"""Every name the template derives from the stack name fits its service's limit.

The longest stack name the template allows is read from its Description ("at most N characters").
The processed template (deploy/processed_template.py) is resolved for a stack name of that length
and for every delivery option, and each name property is measured against its service's limit.
A name property of a type the table below does not know fails too (add its limit), and so does an
ARN in the template that names a rule or a schedule no resource of the template creates (a
renamed rule whose permission was left behind).

  .venv/bin/python deploy/name_limits.py          # exits non-zero naming every breach
"""
import re
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import processed_template  # noqa: E402

# (resource type, property) -> longest value the service accepts
LIMITS = {
    ("AWS::Events::Rule", "Name"): 64,
    ("AWS::SQS::Queue", "QueueName"): 80,
    ("AWS::Lambda::Function", "FunctionName"): 64,
    ("AWS::Lambda::Alias", "Name"): 128,
    ("AWS::CloudWatch::Alarm", "AlarmName"): 255,
    ("AWS::Logs::LogGroup", "LogGroupName"): 512,
    ("AWS::IAM::Role", "RoleName"): 64,
    ("AWS::IAM::RolePolicy", "PolicyName"): 128,
    ("AWS::Scheduler::Schedule", "Name"): 64,
    ("AWS::SNS::Topic", "TopicName"): 256,
    ("AWS::SNS::Topic", "DisplayName"): 100,
    ("AWS::S3::Bucket", "BucketName"): 63,
    ("AWS::AutoScaling::LifecycleHook", "LifecycleHookName"): 255,
    ("AWS::SSM::Parameter", "Name"): 2048,
    ("AWS::Athena::WorkGroup", "Name"): 128,
    ("AWS::CloudWatch::Dashboard", "DashboardName"): 255,
}
# name-like properties that refer to something else (not a name this template gives)
REFERENCES = {"FunctionName", "ClusterName", "MetricName", "AutoScalingGroupName"}

# parameter sets that between them create every optional resource
VARIANTS = [
    {},
    {"DrainDelivery": "sqs", "LifecycleHookGroupNames": "gpu-a", "LifecycleHookForGroup": "gpu-a"},
    {"LifecycleDelivery": "sqs-direct", "LifecycleHookGroupTag": "gpu"},
]


def longest_stack_name(template_text):
    m = re.search(r"stack name to at most (\d+) characters", template_text)
    if not m:
        sys.exit("name_limits: template.yaml's Description states no longest stack name")
    return int(m.group(1))


def strings(node):
    if isinstance(node, str):
        yield node
    elif isinstance(node, dict):
        for v in node.values():
            yield from strings(v)
    elif isinstance(node, list):
        for v in node:
            yield from strings(v)


def resolve(r, value):
    """The value, or None where it depends on a parameter these variants leave empty."""
    try:
        return r.resolve(value)
    except (IndexError, KeyError):
        return None


def main():
    n = longest_stack_name((processed_template.ROOT / "template.yaml").read_text())
    # a valid stack name: a letter, then letters, digits and hyphens
    stack = ("gpufleet-" + "x" * n)[:n]
    problems, checked = [], set()
    for params in VARIANTS:
        template, r = processed_template.resolved(params, processed_template.pseudo_parameters(stack))
        resolved = {lid: {k: resolve(r, v) for k, v in res.get("Properties", {}).items()}
                    for lid, res in template["Resources"].items()}
        names = {"rule": set(), "schedule": set()}
        for lid, res in template["Resources"].items():
            props = resolved[lid]
            for prop, value in props.items():
                if not prop.endswith("Name") or prop in REFERENCES or not isinstance(value, str):
                    continue
                if stack not in value:
                    continue
                limit = LIMITS.get((res["Type"], prop))
                if limit is None:
                    problems.append(f"{lid}: {res['Type']}.{prop} has no known length limit "
                                    f"(add it to LIMITS): {value}")
                elif len(value) > limit:
                    problems.append(f"{lid}: {res['Type']}.{prop} is {len(value)} characters for a "
                                    f"{n}-character stack name, limit {limit}: {value}")
                checked.add((lid, prop))
            if res["Type"] == "AWS::Events::Rule" and props.get("Name"):
                names["rule"].add(props["Name"])
            if res["Type"] == "AWS::Scheduler::Schedule" and props.get("Name"):
                names["schedule"].add(props["Name"])
        for lid, props in resolved.items():
            for s in strings(props):
                for kind, name in re.findall(r":(rule|schedule/default)/([A-Za-z0-9._*-]+)", s):
                    kind = "rule" if kind == "rule" else "schedule"
                    if name.endswith("*"):
                        ok = any(x.startswith(name[:-1]) for x in names[kind])
                    else:
                        ok = name in names[kind]
                    if not ok:
                        problems.append(f"{lid}: refers to {kind} {name}, which the template "
                                        f"does not create (with {params or 'defaults'})")
    for p in sorted(set(problems)):
        print(f"name_limits: {p}", file=sys.stderr)
    if problems:
        return 1
    print(f"name limits: ok ({len(checked)} derived names, stack name of {n} characters)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
