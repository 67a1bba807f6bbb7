#!/usr/bin/env python3
"""Runs checkov on template.yaml and fails on every finding not accepted in
deploy/checkov-suppressions.yaml (each accepted finding carries its reason).

checkov reads neither Fn::ForEach nor `!Ref` of a mapping, so it scans the template as
AWS::LanguageExtensions expands it (SAM CLI's expansion, the one `sam build` uses).

  deploy/checkov_gate.py PATH-TO-CHECKOV
"""
import json
import subprocess
import sys
import tempfile
from pathlib import Path

import yaml
from samcli.lib.cfn_language_extensions.api import process_template
from samcli.yamlhelper import yaml_parse

ROOT = Path(__file__).resolve().parent.parent


def main(checkov):
    suppressions = yaml.safe_load((ROOT / "deploy" / "checkov-suppressions.yaml").read_text())
    problems = []
    accepted = {}
    for entry in suppressions:
        if not str(entry.get("reason", "")).strip():
            problems.append(f"suppression of {entry.get('check')} has no reason")
        for resource in entry.get("resources", []):
            accepted[(entry["check"], resource)] = False

    expanded = process_template(yaml_parse((ROOT / "template.yaml").read_text()))
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "template.expanded.json"
        path.write_text(json.dumps(expanded))
        run = subprocess.run(
            [checkov, "-f", str(path), "--framework", "cloudformation", "--skip-download",
             "--output", "json", "--quiet"],
            capture_output=True, text=True, check=False)
    try:
        report = json.loads(run.stdout)
    except json.JSONDecodeError:
        print(run.stdout[-2000:], run.stderr[-4000:], sep="\n", file=sys.stderr)
        print("checkov: no JSON report (exit %d)" % run.returncode, file=sys.stderr)
        return 1
    reports = report if isinstance(report, list) else [report]
    summary = reports[0].get("summary", {})
    if summary.get("parsing_errors"):
        problems.append(f"checkov could not parse the template: {summary}")
    failed = [f for r in reports for f in r.get("results", {}).get("failed_checks", [])]
    for f in failed:
        key = (f["check_id"], f["resource"].split(".", 1)[-1])
        if key in accepted:
            accepted[key] = True
        else:
            problems.append(f"new finding {key[0]} on {key[1]}: {f['check_name']}")
    for (check, resource), seen in sorted(accepted.items()):
        if not seen:
            problems.append(f"{check} on {resource} is suppressed but no longer found: remove it")
    if problems:
        for p in problems:
            print("  - " + p, file=sys.stderr)
        return 1
    print(f"checkov: {summary.get('passed')} passed, {len(failed)} accepted findings "
          f"(deploy/checkov-suppressions.yaml), no new ones")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1]))
