#!/usr/bin/env python3
"""Template tier: structural rules of template.yaml that cfn-lint cannot know.

Run by deploy/check-template.sh with the test venv's Python (SAM CLI's YAML loader and its
AWS::LanguageExtensions expansion, the one `sam build` uses). Exits non-zero naming every breach:

- every function has Errors, Throttles and DestinationDeliveryFailures alarms, every dead-letter
  queue (any queue a function, rule, schedule or queue redrive dead-letters to) a depth alarm, the 12 quota
  alarms exist, and every alarm notifies on ALARM and on OK;
- every EventBridge rule pins `account`; the Health rule takes upcoming/open or no statusCode;
- events:PutEvents is conditioned on events:source; every role the scheduler assumes is
  conditioned on aws:SourceAccount and aws:SourceArn;
- every parameter sits in exactly one console ParameterGroup;
- both SQS mappings set ScalingConfig.MaximumConcurrency below the drain's reservation; queue
  policies deny every sender but the stack's rules and roles, never ArnLike; the drain's decoder
  accepts the stack's account; lifecycle rules filter the hook name; the schedule alarms on an
  invalid policy, a guardrail refusal, failed writes and no reconcile for two periods;
- no function environment holds a secret: no NoEcho parameter, no *WEBHOOK_URL/*TOKEN*/*PASSWORD* value,
  the Slack webhook only as a Secrets Manager ARN (SLACK_WEBHOOK_SECRET) with read on that one ARN.
"""
import json
import re
import sys
from pathlib import Path

from samcli.lib.cfn_language_extensions.api import process_template
from samcli.yamlhelper import yaml_parse

ROOT = Path(__file__).resolve().parent.parent
problems = []


def check(ok, message):
    if not ok:
        problems.append(message)


def walk(node):
    yield node
    if isinstance(node, dict):
        for v in node.values():
            yield from walk(v)
    elif isinstance(node, list):
        for v in node:
            yield from walk(v)


def refs(node):
    """Logical ids and parameters a node refers to (Ref, GetAtt, Sub)."""
    out = set()
    for n in walk(node):
        if isinstance(n, dict):
            if isinstance(n.get("Ref"), str):
                out.add(n["Ref"].split(".")[0])
            ga = n.get("Fn::GetAtt")
            if isinstance(ga, list) and ga and isinstance(ga[0], str):
                out.add(ga[0])
            elif isinstance(ga, str):
                out.add(ga.split(".")[0])
            sub = n.get("Fn::Sub")
            text = sub if isinstance(sub, str) else sub[0] if isinstance(sub, list) else ""
            out.update(m.split(".")[0] for m in re.findall(r"\$\{([A-Za-z0-9:.]+)\}", text))
    return out


def statements(role, with_condition=False):
    for policy in role["Properties"].get("Policies", []):
        for st in policy["PolicyDocument"]["Statement"]:
            condition = None
            if isinstance(st, dict) and "Fn::If" in st:
                condition, st = st["Fn::If"][0], st["Fn::If"][1]
            if isinstance(st, dict) and "Effect" in st:
                yield (condition, st) if with_condition else st


def as_list(v):
    return v if isinstance(v, list) else [v]


def main():
    raw = yaml_parse((ROOT / "template.yaml").read_text())
    check(
        "AWS::LanguageExtensions" in as_list(raw.get("Transform")),
        "Transform must include AWS::LanguageExtensions (alarms are generated with Fn::ForEach)",
    )
    t = process_template(raw)
    params = t.get("Parameters", {})
    res = t["Resources"]
    by_type = lambda ty: {k: v for k, v in res.items() if v.get("Type") == ty}
    functions = by_type("AWS::Serverless::Function")
    alarms = by_type("AWS::CloudWatch::Alarm")
    check(len(functions) >= 4, f"expected the four functions, found {sorted(functions)}")

    # ---- alarms ----
    def alarms_on(namespace, metric, dim_name, target):
        found = []
        for name, a in alarms.items():
            p = a["Properties"]
            if p.get("Namespace") == namespace and p.get("MetricName") == metric:
                dims = {d["Name"]: d["Value"] for d in p.get("Dimensions", [])}
                if dim_name in dims and (target in refs(dims[dim_name]) or dims[dim_name] == target):
                    found.append(name)
        return found

    for fn, f in functions.items():
        for metric in ("Errors", "Throttles", "DestinationDeliveryFailures"):
            check(alarms_on("AWS/Lambda", metric, "FunctionName", fn),
                  f"{fn}: no {metric} alarm (add it to Fn::ForEach::FunctionAlarms)")
        service = f["Properties"].get("Environment", {}).get("Variables", {}).get(
            "POWERTOOLS_SERVICE_NAME")
        check(service and alarms_on("GpuFleetOps", "ReportFailures", "Service", service),
              f"{fn}: no ReportFailures alarm for Service={service}")

    dead_letter_queues = set()
    for name, r in res.items():
        for n in walk(r.get("Properties", {})):
            if isinstance(n, dict):
                for key in ("DeadLetterConfig", "OnFailure", "RedrivePolicy"):
                    if isinstance(n.get(key), dict):
                        target = n[key].get("Arn", n[key].get("Destination",
                                                              n[key].get("deadLetterTargetArn")))
                        dead_letter_queues |= {x for x in refs(target) if x in res}
    check(dead_letter_queues, "found no dead-letter queue at all")
    for q in sorted(dead_letter_queues):
        check(res[q]["Type"] == "AWS::SQS::Queue", f"{q}: dead-letter target is not a queue")
        check(alarms_on("AWS/SQS", "ApproximateNumberOfMessagesVisible", "QueueName", q),
              f"{q}: dead-letter queue without a depth alarm (add it to Fn::ForEach::DeadLetterAlarms)")

    for metric in ("DeadlineMissed", "EventsFailed"):
        check(alarms_on("GpuFleetOps", metric, "Service", "interruption-drain"),
              f"no alarm on the drain's {metric} metric")
    quota = [n for n in alarms if n.startswith("PreflightQuotaAlarm")]
    check(len(quota) == 12, f"expected 12 quota alarms, found {len(quota)}")
    # A usage class public ListServiceQuotas output does not show (Trn) may never report: its
    # alarm must go to INSUFFICIENT_DATA and say so, not sit at OK; every quota alarm notifies then.
    unconfirmed_classes = {"Trn"}
    for name in quota:
        p = alarms[name]["Properties"]
        usage_class = next(d["Value"] for m in p["Metrics"] if "MetricStat" in m
                           for d in m["MetricStat"]["Metric"]["Dimensions"] if d["Name"] == "Class")
        bucket = usage_class.split("/")[0]
        wanted = "missing" if bucket in unconfirmed_classes else "notBreaching"
        check(p.get("TreatMissingData") == wanted,
              f"{name}: Class {usage_class} must treat missing data as {wanted}, "
              f"not {p.get('TreatMissingData')}")
        check(refs(p.get("InsufficientDataActions")) & {"NotificationTopicArn", "AlarmTopic"},
              f"{name}: InsufficientDataActions must notify NotificationTopicArn, else AlarmTopic")

    for name, a in alarms.items():
        p = a["Properties"]
        for key in ("AlarmActions", "OKActions"):
            targets = refs(p.get(key))
            # the expansion resolves the !If with parameter defaults: one of the two remains
            check(targets & {"NotificationTopicArn", "AlarmTopic"},
                  f"{name}: {key} must notify NotificationTopicArn, else AlarmTopic")

    # ---- rules ----
    rules = []
    for fn, f in functions.items():
        for ev_name, ev in f["Properties"].get("Events", {}).items():
            if ev["Type"] in ("EventBridgeRule", "CloudWatchEvent"):
                rules.append((f"{fn}.{ev_name}", ev["Properties"]["Pattern"]))
    for name, r in by_type("AWS::Events::Rule").items():
        if "EventPattern" in r["Properties"]:
            rules.append((name, r["Properties"]["EventPattern"]))
    check(rules, "found no EventBridge rule")
    for name, pattern in rules:
        check(refs(pattern.get("account")) == {"AWS::AccountId"},
              f"{name}: rule must pin account: [!Ref AWS::AccountId]")
        if "aws.health" in as_list(pattern.get("source")):
            status = pattern.get("detail", {}).get("statusCode", [])
            check(sorted(map(json.dumps, status)) == sorted(
                      map(json.dumps, ["upcoming", "open", {"exists": False}])),
                  f"{name}: Health rule must take statusCode [upcoming, open] or none, never closed")

    # ---- IAM ----
    # Roles are not generated: read them unexpanded, so no parameter default resolves an !If away.
    roles = {k: v for k, v in raw["Resources"].items()
             if isinstance(v, dict) and v.get("Type") == "AWS::IAM::Role"}
    for name, role in roles.items():
        for st in statements(role):
            if "events:PutEvents" in as_list(st.get("Action")):
                source = st.get("Condition", {}).get("StringEquals", {}).get("events:source")
                check(isinstance(source, str) and source.startswith("gpufleet."),
                      f"{name}/{st.get('Sid')}: events:PutEvents without an events:source condition")
        for st in role["Properties"]["AssumeRolePolicyDocument"]["Statement"]:
            services = as_list(st.get("Principal", {}).get("Service", []))
            if "scheduler.amazonaws.com" in services:
                cond = st.get("Condition", {})
                check("aws:SourceAccount" in cond.get("StringEquals", {}),
                      f"{name}: scheduler trust without aws:SourceAccount")
                check("aws:SourceArn" in {**cond.get("ArnEquals", {}), **cond.get("ArnLike", {})},
                      f"{name}: scheduler trust without aws:SourceArn")
    # S3 answers 403 for a missing key unless the caller may list the bucket: every object a role
    # reads must have its bucket listable under the same condition, so "missing" reads as missing.
    local = {"Bucket", "Path", "BucketAndKey", "Name"}
    for name, role in roles.items():
        sts = list(statements(role, with_condition=True))
        lists = [(c, st) for c, st in sts
                 if "s3:ListBucket" in as_list(st.get("Action")) and "Condition" not in st]
        for cond, st in sts:
            if "s3:GetObject" not in as_list(st.get("Action")):
                continue
            wanted = {r for r in refs(st.get("Resource")) if not r.startswith("AWS::")} - local
            check(any(c in (None, cond) and wanted & refs(l.get("Resource")) for c, l in lists),
                  f"{name}/{st.get('Sid')}: reads S3 objects without s3:ListBucket on their bucket"
                  " (a missing key would answer 403, not 404)")
    for fn, f in functions.items():
        for ev_name, ev in f["Properties"].get("Events", {}).items():
            if ev["Type"] in ("ScheduleV2", "Schedule"):
                check("RoleArn" in ev["Properties"],
                      f"{fn}.{ev_name}: schedule without RoleArn gets SAM's unconditioned role")

    # ---- secrets ----
    no_echo = {k for k, v in params.items() if str(v.get("NoEcho", "false")).lower() == "true"}
    for fn, f in functions.items():
        env = f["Properties"].get("Environment", {}).get("Variables", {})
        for var, value in env.items():
            check(not (refs(value) & no_echo), f"{fn}: {var} carries a NoEcho parameter")
            # (a queue URL or endpoint is no secret; a webhook URL embeds its token)
            check(not re.search(r"(WEBHOOK_URL|TOKEN|PASSWORD|API_KEY|PRIVATE_KEY)", var),
                  f"{fn}: environment variable {var} looks like a secret; pass a reference")
        # every function sends its outcomes through the same sinks (OutcomeSinks): a stack with
        # a Slack webhook must hand it to all of them, not to some (read from the template as
        # written: processing drops a conditional variable whose condition is false by default)
        raw_env = (raw["Resources"].get(fn, {}).get("Properties", {}).get("Environment", {})
                   .get("Variables", {}))
        check("SLACK_WEBHOOK_SECRET" in raw_env, f"{fn}: SLACK_WEBHOOK_SECRET is not set")
        if "SLACK_WEBHOOK_SECRET" in env:
            check(refs(env["SLACK_WEBHOOK_SECRET"]) == {"SlackWebhookSecret", "AWS::NoValue"},
                  f"{fn}: SLACK_WEBHOOK_SECRET must be the SlackWebhookSecret reference")
            role = roles[next(iter(refs(f["Properties"]["Role"])))]
            reads = [st for st in statements(role)
                     if as_list(st.get("Action")) == ["secretsmanager:GetSecretValue"]
                     and refs(st.get("Resource")) == {"SlackWebhookSecret"}]
            check(len(reads) == 1, f"{fn}: role must read exactly the SlackWebhookSecret ARN")
    pattern = params.get("SlackWebhookSecret", {}).get("AllowedPattern", "")
    for bad in ("https://hooks.slack.com/services/T/B/x", "arn:aws:ssm:us-east-1:1:parameter/x",
                "ssm:/gpufleet/slack", "gpufleet/slack"):
        check(not re.fullmatch(pattern, bad), f"SlackWebhookSecret accepts {bad!r}")
    for good in ("",
                 "arn:aws:secretsmanager:us-east-1:123456789012:secret:gpufleet/slack-AbCdEf"):
        check(re.fullmatch(pattern, good), f"SlackWebhookSecret refuses {good!r}")

    # ---- concurrency ----
    drain = raw["Resources"].get("InterruptionDrainFunction", {}).get("Properties", {})
    check("DrainReservedConcurrency" in refs(drain.get("ReservedConcurrentExecutions")),
          "the drain's reserved concurrency must come from DrainReservedConcurrency")
    for fn in ("DisruptionScheduleFunction", "CostReportFunction"):
        check(functions.get(fn, {}).get("Properties", {}).get("ReservedConcurrentExecutions") == 1,
              f"{fn}: a singleton needs ReservedConcurrentExecutions: 1")

    # ---- many clusters: every function that reads CLUSTER_NAMES can reach each listed cluster ----
    extra = [v for k, v in raw["Resources"].items()
             if k.startswith("Fn::ForEach::") and "DrainAdditionalClusterNames" in refs(v[1])]
    for fn, role in (("InterruptionDrainFunction", "InterruptionDrainRole"),
                     ("CostReportFunction", "CostReportRole")):
        env = (raw["Resources"].get(fn, {}).get("Properties", {}).get("Environment", {})
               .get("Variables", {}))
        check("DrainAdditionalClusterNames" in refs(env.get("CLUSTER_NAMES")),
              f"{fn}: CLUSTER_NAMES must come from DrainAdditionalClusterNames")
        made = [r for each in extra for r in each[2].values()]
        check(any(r.get("Type") == "AWS::IAM::RolePolicy"
                  and role in refs(r.get("Properties", {}).get("RoleName")) for r in made),
              f"{fn}: no per-cluster eks:DescribeCluster policy on {role} (Fn::ForEach)")
        check(any(r.get("Type") == "AWS::EKS::AccessEntry"
                  and role in refs(r.get("Properties", {}).get("PrincipalArn")) for r in made),
              f"{fn}: no per-cluster access entry for {role} (Fn::ForEach)")

    # ---- floods: both SQS mappings capped below the drain's reservation ----
    def default(name):
        return int(params.get(name, {}).get("Default", 0))

    caps = {}
    for name in ("DrainEventQueueMapping", "DrainBulkEventQueueMapping", "LifecycleQueueMapping"):
        # the unprocessed template: local processing drops what it cannot resolve (parameter refs)
        m = raw["Resources"].get(name, {}).get("Properties", {})
        cap = m.get("ScalingConfig", {}).get("MaximumConcurrency")
        check(cap is not None, f"{name}: no ScalingConfig.MaximumConcurrency (throttled batches "
                               "return to the queue and dead-letter unprocessed)")
        caps[name] = default(cap["Ref"]) if isinstance(cap, dict) and "Ref" in cap else cap
    if all(isinstance(c, int) for c in caps.values()):
        check(sum(caps.values()) < default("DrainReservedConcurrency"),
              f"the SQS mappings' MaximumConcurrency {caps} must stay below "
              f"DrainReservedConcurrency ({default('DrainReservedConcurrency')})")
    for q in ("DrainEventQueue", "DrainBulkEventQueue", "LifecycleQueue"):
        rc = res.get(q, {}).get("Properties", {}).get("RedrivePolicy", {}).get("maxReceiveCount", 0)
        check(int(rc) >= 10, f"{q}: maxReceiveCount {rc} leaves too few receives for throttling")

    # ---- events only from where they should come: queue policies deny other senders ----
    def queue_statements(policy):
        for st in res.get(policy, {}).get("Properties", {}).get("PolicyDocument", {}).get(
                "Statement", []):
            if isinstance(st, dict) and "Fn::If" in st:
                st = st["Fn::If"][1]
            if isinstance(st, dict):
                yield st

    for policy in ("DrainEventQueuePolicy", "DrainBulkEventQueuePolicy", "LifecycleQueuePolicy",
                   "DrainDeadLetterQueuePolicy"):
        denies = [st for st in queue_statements(policy)
                  if st.get("Effect") == "Deny" and "sqs:SendMessage" in as_list(st.get("Action"))
                  and "ArnNotEquals" in st.get("Condition", {})]
        check(denies, f"{policy}: no Deny of sqs:SendMessage for senders other than the stack's "
                      "rules (exact aws:SourceArn) and roles (aws:PrincipalArn)")
        for st in queue_statements(policy):
            check("ArnLike" not in st.get("Condition", {}),
                  f"{policy}: {st.get('Sid')} matches aws:SourceArn by prefix (ArnLike); use ArnEquals")
    drain_env = raw["Resources"].get("InterruptionDrainFunction", {}).get("Properties", {}).get(
        "Environment", {}).get("Variables", {})
    check("AWS::AccountId" in refs(drain_env.get("EVENT_ACCOUNTS")),
          "the drain's EVENT_ACCOUNTS must name the stack's account (the decoder refuses others)")
    # warnings and bulk state changes never share a queue (a storm of the latter would delay them)
    urgent = str(raw["Resources"].get("DrainEventsToQueueRule", {}).get("Properties", {}).get(
        "EventPattern", {}))
    check("State-change" not in urgent and "aws.health" not in urgent,
          "DrainEventsToQueueRule must leave state changes and Health to the bulk queue")
    for rule in ("LifecycleHookRule",):
        pattern = res.get(rule, {}).get("Properties", {}).get("EventPattern", {})
        check("LifecycleHookName" in str(pattern), f"{rule}: the pattern must filter the hook name")

    # ---- the Slack secret: readable by the four functions' roles only ----
    secret_policies = [r for r in raw["Resources"].values()
                       if isinstance(r, dict) and r.get("Type") == "AWS::SecretsManager::ResourcePolicy"]
    check(secret_policies and all(
        {"InterruptionDrainRole", "CostReportRole", "DisruptionScheduleRole",
         "CapacityPreflightRole"} <= refs(p["Properties"]["ResourcePolicy"]) for p in secret_policies),
          "the Slack webhook secret needs a resource policy limiting GetSecretValue to the four roles")

    # ---- the schedule's failures cannot go unnoticed ----
    for metric in ("RunsInvalidPolicy", "RunsGuardrail", "WritesFailed"):
        check(alarms_on("GpuFleetOps", metric, "Service", "disruption-schedule"),
              f"no alarm on the schedule's {metric} metric")
    stale = [a for a in alarms.values()
             if a["Properties"].get("MetricName") == "RunsReconciled"]
    check(stale and all(a["Properties"].get("TreatMissingData") == "breaching"
                        and a["Properties"].get("EvaluationPeriods", 0) >= 2 for a in stale),
          "no 'no successful reconcile for 2 schedule periods' alarm with missing data breaching")

    # ---- bulk kinds apart from the warnings in both deliveries ----
    bulk = raw["Resources"].get("DrainBulkEventsToQueueRule", {})
    check(bulk and "Condition" not in bulk
          and all("Condition" not in raw["Resources"].get(n, {"Condition": 1})
                  for n in ("DrainBulkEventQueue", "DrainBulkEventQueueMapping")),
          "the bulk queue, its rule and mapping must exist in both deliveries (no Condition)")
    direct_events = raw["Resources"]["InterruptionDrainFunction"]["Properties"].get("Events", {})
    for name, ev in direct_events.items():
        text = repr(ev.get("Properties", {}).get("Pattern"))
        check("State-change Notification" not in text and "aws.health" not in text,
              f"direct rule {name} routes a bulk kind (state change or Health) to the function")

    # ---- VPC: network interface actions scoped (Describe alone on "*") ----
    eni_actions = {"ec2:CreateNetworkInterface", "ec2:DeleteNetworkInterface",
                   "ec2:AssignPrivateIpAddresses", "ec2:UnassignPrivateIpAddresses"}
    vpc_roles = 0
    # the unprocessed template: with the default (no subnets) these statements resolve away
    raw_roles = {k: v for k, v in raw["Resources"].items()
                 if isinstance(v, dict) and v.get("Type") == "AWS::IAM::Role"}
    for name, role in raw_roles.items():
        for st in statements(role):
            actions = set(as_list(st.get("Action", [])))
            if not actions & (eni_actions | {"ec2:DescribeNetworkInterfaces"}):
                continue
            vpc_roles += "ec2:CreateNetworkInterface" in actions
            text = repr(st.get("Resource"))
            if actions <= {"ec2:DescribeNetworkInterfaces", "ec2:DescribeSubnets"}:
                check(st.get("Resource") == "*", f"{name}: VPC describe statement not on '*'")
                continue
            check(":*/*" not in text and st.get("Resource") != "*",
                  f"{name}: {sorted(actions & eni_actions)} on every EC2 resource")
            if "ec2:CreateNetworkInterface" in actions:
                check(actions == {"ec2:CreateNetworkInterface"}
                      and {"SubnetIds", "SecurityGroupIds"} <= refs(st.get("Resource"))
                      and "network-interface/*" in text,
                      f"{name}: CreateNetworkInterface must name network-interface/* and the"
                      " stack's SubnetIds and SecurityGroupIds only")
            else:
                check(text.count("network-interface/*") == 1 and "subnet/" not in text,
                      f"{name}: {sorted(actions)} must name network interfaces only")
    check(vpc_roles == len(functions),
          f"{vpc_roles} roles may create network interfaces, expected one per function")

    # ---- console: every parameter in exactly one parameter group ----
    groups = (raw.get("Metadata", {}).get("AWS::CloudFormation::Interface", {})
              .get("ParameterGroups", []))
    grouped = [p for g in groups for p in g.get("Parameters", [])]
    for name in sorted(set(raw.get("Parameters", {})) - set(grouped)):
        problems.append(f"parameter {name} is in no ParameterGroup (the console lists it apart)")
    for name in sorted({p for p in grouped if grouped.count(p) > 1}):
        problems.append(f"parameter {name} is in more than one ParameterGroup")
    for name in sorted(set(grouped) - set(raw.get("Parameters", {}))):
        problems.append(f"ParameterGroups name {name}, which is not a parameter")

    if problems:
        print("template rules: %d problem(s)" % len(problems), file=sys.stderr)
        for p in problems:
            print("  - " + p, file=sys.stderr)
        return 1
    print(f"template rules: ok ({len(functions)} functions, {len(alarms)} alarms, "
          f"{len(rules)} rules, {len(dead_letter_queues)} dead-letter queues)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
