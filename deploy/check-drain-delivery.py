#!/usr/bin/env python3
"""Template tier: the drain's SQS delivery (DrainDelivery=sqs) holds what Lambda and SQS need.

- the queue's visibility timeout is at least 6 x the drain function's timeout;
- its redrive policy sends to the drain dead-letter queue after at least 5 receives;
- the event source mapping reports partial batch failures;
- every drain rule pins this account; the queue rules (warnings, and the bulk kinds apart) route every
  (source, detail-type) a direct drain rule routes, so both delivery modes act on the same events.

Run with the venv that has cfn-lint (its decoder reads the short-form intrinsics).
"""
import sys

from cfnlint.decode import decode


def fail(msg):
    print("check-drain-delivery: " + msg, file=sys.stderr)
    sys.exit(1)


def when_true(node):
    """The value a pattern element has when its Fn::If condition holds (None for AWS::NoValue)."""
    if isinstance(node, dict) and "Fn::If" in node:
        return when_true(node["Fn::If"][1])
    if node == {"Ref": "AWS::NoValue"}:
        return None
    return node


def kinds(pattern):
    """(source, detail-type) pairs a pattern matches, $or branches included."""
    out = set()
    branches = pattern.get("$or", [pattern])
    for b in (when_true(x) for x in branches):
        if b is None:
            continue
        merged = {**{k: v for k, v in pattern.items() if k != "$or"}, **b}
        for src in merged.get("source", []):
            for dt in merged.get("detail-type", []):
                out.add((src, dt))
    return out


def main(path):
    tpl, errors = decode(path)
    if errors:
        fail("cannot read %s: %s" % (path, errors))
    res = tpl["Resources"]
    fn = res["InterruptionDrainFunction"]["Properties"]
    timeout = fn.get("Timeout", tpl.get("Globals", {}).get("Function", {}).get("Timeout", 3))
    q = res["DrainEventQueue"]["Properties"]
    if q["VisibilityTimeout"] < 6 * timeout:
        fail("VisibilityTimeout %s < 6 x function timeout %s" % (q["VisibilityTimeout"], timeout))
    redrive = q["RedrivePolicy"]
    if redrive["maxReceiveCount"] < 5:
        fail("maxReceiveCount %s < 5" % redrive["maxReceiveCount"])
    if redrive["deadLetterTargetArn"] != {"Fn::GetAtt": ["DrainDeadLetterQueue", "Arn"]}:
        fail("redrive does not target DrainDeadLetterQueue")
    esm = res["DrainEventQueueMapping"]["Properties"]
    if "ReportBatchItemFailures" not in esm.get("FunctionResponseTypes", []):
        fail("event source mapping does not report batch item failures")
    queue_rules = ("DrainEventsToQueueRule", "DrainBulkEventsToQueueRule")
    queued = set()
    for name in queue_rules:
        rule = res[name]["Properties"]["EventPattern"]
        if rule.get("account") != [{"Ref": "AWS::AccountId"}]:
            fail("the queue rule %s does not pin account to AWS::AccountId" % name)
        queued |= kinds(rule)
    direct = set()
    for name, ev in fn.get("Events", {}).items():
        if ev["Type"] == "EventBridgeRule":
            if ev["Properties"]["Pattern"].get("account") != [{"Ref": "AWS::AccountId"}]:
                fail("rule %s does not pin account to AWS::AccountId" % name)
            direct |= kinds(ev["Properties"]["Pattern"])
    # standalone rules that target the drain function (e.g. LifecycleHookRule)
    for name, r in res.items():
        if not isinstance(r, dict) or r.get("Type") != "AWS::Events::Rule":
            continue
        if name in queue_rules:
            continue
        targets = r["Properties"].get("Targets", [])
        if any("InterruptionDrainFunction" in str(t.get("Arn")) for t in targets):
            pattern = r["Properties"]["EventPattern"]
            if pattern.get("account") != [{"Ref": "AWS::AccountId"}]:
                fail("rule %s does not pin account to AWS::AccountId" % name)
            direct |= kinds(pattern)
    missing = direct - queued
    if missing:
        fail("the queue rules miss kinds the direct rules route: %s" % sorted(missing))
    print("check-drain-delivery: ok (%d kinds, visibility %ss for a %ss function)"
          % (len(queued), q["VisibilityTimeout"], timeout))


if __name__ == "__main__":
    main(sys.argv[1] if len(sys.argv) > 1 else "template.yaml")
