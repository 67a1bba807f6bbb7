#!/usr/bin/env python3
"""Generates fleet-core's instance catalog (CatalogData.java) from real DescribeInstanceTypes data.

Source: the DescribeInstanceTypes dump moto ships (moto/ec2/resources/instance_types.json.gz,
Apache-2.0), at the moto version pinned in scripts/requirements-test.txt - moto's maintainers
refresh it from the live API with their scripts/ec2_get_instance_type_offerings tooling. Added to
it, each row with its source: supplement.tsv (accelerated types the dump lacks), overrides.tsv
(dump values that are wrong, with the reason) and prices-us-east-1.tsv (static On-Demand prices,
their as-of dates and sources).

Selection: every type of the dump with GpuInfo, NeuronInfo, InferenceAcceleratorInfo or
MediaAcceleratorInfo (GPUs, Trainium/Inferentia, Qualcomm AI 100, Xilinx U30), plus the supplement,
plus the CPU types that have a static price. FPGA-only types (FpgaInfo: f1/f2) are left out: the
product neither schedules nor prices them as accelerators.

  generate_instance_catalog.py           rewrite the committed CatalogData.java
  generate_instance_catalog.py --check   exit 1 (with a diff) if the committed file differs
  generate_instance_catalog.py --dump F  read the dump from F (.json or .json.gz) instead of moto

Run it with the Python of the test venv (.venv/bin/python), where the pinned moto is installed.
"""

import argparse
import difflib
import gzip
import importlib.metadata
import json
import os
import re
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
OUT = os.path.join(
    ROOT,
    "platform/core/src/main/java/io/gpufleet/core/catalog/CatalogData.java",
)
REQUIREMENTS = os.path.join(ROOT, "scripts/requirements-test.txt")

ACCELERATOR_INFOS = (
    "GpuInfo",
    "NeuronInfo",
    "InferenceAcceleratorInfo",
    "MediaAcceleratorInfo",
)

# Quota bucket by the letters before the family's generation digit, longest prefix wins
# (quotas-capacity.md); InstanceCatalogDataTest checks every row against InstanceCatalog.bucketOf.
BUCKET_PREFIXES = {"dl": "DL", "trn": "TRN", "inf": "INF", "p": "P", "g": "G_VT", "gr": "G_VT",
                   "vt": "G_VT"}
# Table order: by bucket as the old hand-typed catalog listed them, then family, then size.
BUCKET_ORDER = ["P", "G_VT", "TRN", "INF", "DL", "STANDARD"]


def pinned_moto_version():
    with open(REQUIREMENTS) as f:
        for line in f:
            m = re.match(r"\s*moto(\[[^\]]*\])?==([^\s#]+)", line)
            if m:
                return m.group(2)
    sys.exit(f"no pinned moto version in {REQUIREMENTS}")


def load_dump(path):
    if path:
        opener = gzip.open if path.endswith(".gz") else open
        with opener(path, "rt") as f:
            return json.load(f), f"dump file {os.path.basename(path)}"
    pinned = pinned_moto_version()
    installed = importlib.metadata.version("moto")
    if installed != pinned:
        sys.exit(
            f"moto {installed} is installed but scripts/requirements-test.txt pins {pinned}: "
            "run with the test venv (.venv/bin/python) so the catalog comes from the pinned dump"
        )
    import moto  # noqa: E402 (only needed here)

    base = os.path.join(os.path.dirname(moto.__file__), "ec2", "resources")
    for name in ("instance_types.json.gz", "instance_types.json"):
        p = os.path.join(base, name)
        if os.path.exists(p):
            opener = gzip.open if name.endswith(".gz") else open
            with opener(p, "rt") as f:
                return json.load(f), f"moto {pinned} moto/ec2/resources/{name}"
    sys.exit(f"moto {pinned} has no ec2/resources/instance_types.json[.gz]")


def tsv(name):
    rows = []
    with open(os.path.join(HERE, name)) as f:
        for line in f:
            line = line.rstrip("\n")
            if line.strip() and not line.startswith("#"):
                rows.append(line.split("\t"))
    return rows


def bucket(family):
    letters = re.match(r"[a-z]*", family).group(0)
    best = None
    for prefix, b in BUCKET_PREFIXES.items():
        if letters.startswith(prefix) and (best is None or len(prefix) > len(best[0])):
            best = (prefix, b)
    return best[1] if best else "STANDARD"


def kind(manufacturer, model):
    m = manufacturer.lower()
    if m == "nvidia":
        return "NVIDIA_GPU"
    if m == "amd":
        return "AMD_GPU"
    if m == "habana":
        return "HABANA_GAUDI"
    if m == "qualcomm":
        return "QUALCOMM_AI100"
    if m == "xilinx":
        return "XILINX_MEDIA"
    if m == "aws" and model.startswith("Trainium"):
        return "AWS_TRAINIUM"
    if m == "aws" and model.startswith("Inferentia"):
        return "AWS_INFERENTIA"
    sys.exit(f"unknown accelerator manufacturer/model {manufacturer}/{model}: extend kind()")


def from_dump(t, info):
    """One row of facts from a DescribeInstanceTypes InstanceTypeInfo."""
    row = {
        "type": t,
        "vcpus": info["VCpuInfo"]["DefaultVCpus"],
        "memory": info["MemoryInfo"]["SizeInMiB"],
        "kind": "NONE",
        "count": 0,
        "model": None,
        "accel_memory": 0,
        "partition": 1.0,
        "origin": "DUMP",
    }
    if "GpuInfo" in info:
        gpus = info["GpuInfo"]["Gpus"]
        g = gpus[0]
        # fractional GPUs (g6f, gr6f) report Count 0 and LogicalGpuCount 1 with a partition size:
        # Kubernetes sees one nvidia.com/gpu, so the logical count is what the catalog counts
        count = sum(x.get("LogicalGpuCount", x["Count"]) for x in gpus)
        row.update(kind=kind(g["Manufacturer"], g["Name"]), count=count, model=g["Name"],
                   accel_memory=g["MemoryInfo"]["SizeInMiB"],
                   partition=float(g.get("GpuPartitionSize", 1.0)))
    elif "NeuronInfo" in info:
        devs = info["NeuronInfo"]["NeuronDevices"]
        d = devs[0]
        row.update(kind=kind("AWS", d["Name"]), count=sum(x["Count"] for x in devs),
                   model=d["Name"], accel_memory=d["MemoryInfo"]["SizeInMiB"])
    else:
        for key in ("InferenceAcceleratorInfo", "MediaAcceleratorInfo"):
            if key in info:
                accs = info[key]["Accelerators"]
                a = accs[0]
                row.update(kind=kind(a["Manufacturer"], a["Name"]),
                           count=sum(x["Count"] for x in accs), model=a["Name"],
                           accel_memory=a["MemoryInfo"]["SizeInMiB"])
    return row


def build(dump):
    rows = {}
    for t, info in dump.items():
        if any(k in info for k in ACCELERATOR_INFOS):
            rows[t] = from_dump(t, info)
    for t, vcpus, mem, manufacturer, count, model, accel_mem, source in tsv("supplement.tsv"):
        if t in dump:
            sys.exit(f"{t} is in the dump now: delete its supplement.tsv row")
        rows[t] = {"type": t, "vcpus": int(vcpus), "memory": int(mem),
                   "kind": kind(manufacturer, model), "count": int(count), "model": model,
                   "accel_memory": int(accel_mem), "partition": 1.0,
                   "origin": "SUPPLEMENT", "supplement_source": source}
    overridden = []
    for t, field, value, reason in tsv("overrides.tsv"):
        key = {"accel_memory_mib": "accel_memory", "memory_mib": "memory", "vcpus": "vcpus",
               "count": "count", "model": "model"}[field]
        new = value if key == "model" else int(value)
        if t not in rows:
            sys.exit(f"override for {t}, which is not in the catalog")
        if rows[t][key] == new:
            sys.exit(f"override {t} {field}={value} changes nothing: the dump was fixed, delete it")
        overridden.append((t, field, rows[t][key], new, reason))
        rows[t][key] = new
        rows[t]["origin"] = "DUMP_CORRECTED"

    sources = {}
    prices = {}
    for cols in tsv("prices-us-east-1.tsv"):
        if cols[0] == "@source":
            _, sid, as_of, text = cols
            sources[sid] = (as_of, text)
            continue
        t, usd, sid = cols
        if sid not in sources:
            sys.exit(f"price of {t} names unknown source {sid}")
        if not re.fullmatch(r"\d+(\.\d+)?", usd):
            sys.exit(f"price of {t} is not a decimal: {usd}")
        prices[t] = (usd, sid)
        if t not in rows:
            if t not in dump:
                sys.exit(f"{t} has a price but no facts (not in the dump or the supplement)")
            rows[t] = from_dump(t, dump[t])
            if rows[t]["kind"] != "NONE":
                sys.exit(f"{t} is accelerated but was not selected")
    for r in rows.values():
        r["bucket"] = bucket(r["type"].split(".")[0])
        r["price"] = prices.get(r["type"])
    return rows, sources, overridden


def order_key(r):
    family = r["type"].split(".")[0]
    return (BUCKET_ORDER.index(r["bucket"]), r["kind"] == "NONE", family, r["vcpus"], r["type"])


def java_string(s):
    return '"' + s.replace("\\", "\\\\").replace('"', '\\"') + '"'


def chunks(text, width):
    out, cur = [], ""
    for word in text.split(" "):
        if cur and len(cur) + 1 + len(word) > width:
            out.append(cur + " ")
            cur = word
        else:
            cur = word if not cur else cur + " " + word
    out.append(cur)
    return out


def render(rows, sources, overridden, origin):
    """Java whose every statement fits one 100-column line, so google-java-format keeps it as is."""
    kinds = sorted({r["kind"] for r in rows.values()} - {"NONE"})
    buckets = sorted({r["bucket"] for r in rows.values()})
    ordered = sorted(rows.values(), key=order_key)
    out = []
    w = out.append
    w("// GENERATED by scripts/catalog/generate_instance_catalog.py - do not edit by hand.")
    w("// Facts: DescribeInstanceTypes data from " + origin + ",")
    w("// plus scripts/catalog/supplement.tsv and overrides.tsv (each row names its source);")
    w("// static prices: scripts/catalog/prices-us-east-1.tsv.")
    w("// Regenerate: .venv/bin/python scripts/catalog/generate_instance_catalog.py")
    w("package io.gpufleet.core.catalog;")
    w("")
    for k in kinds:
        w(f"import static io.gpufleet.core.catalog.AcceleratorKind.{k};")
    for b in buckets:
        w(f"import static io.gpufleet.core.catalog.QuotaBucket.{b};")
    w("")
    w("import java.util.List;")
    w("")
    w("/** The generated instance table; read it through {@link InstanceCatalog}. */")
    w("final class CatalogData {")
    w(f"  static final String FACTS_SOURCE = {java_string(origin)};")
    w("")
    w("  private CatalogData() {}")
    w("")
    w("  static List<CatalogEntry> rows() {")
    w("    var b = new CatalogBuilder();")
    for sid in sorted(sources):
        as_of, text = sources[sid]
        y, m, d = (int(x) for x in as_of.split("-"))
        w(f"    b.source({java_string(sid)}, {y}, {m}, {d});")
        for c in chunks(text, 76 - len(sid)):
            w(f"    b.describe({java_string(sid)}, {java_string(c)});")
    for r in ordered:
        t = java_string(r["type"])
        for (ot, field, old, new, _reason) in overridden:
            if ot == r["type"]:
                w(f"    // {field} corrected, the dump says {old}: see scripts/catalog/overrides.tsv")
        call = {"DUMP": "dump", "DUMP_CORRECTED": "corrected", "SUPPLEMENT": "supplement"}[r["origin"]]
        if r["kind"] == "NONE":
            w(f"    b.{call}({t}, {r['vcpus']}, {r['memory']}, {r['bucket']});")
        else:
            w(f"    b.{call}({t}, {r['vcpus']}, {r['memory']}, {r['bucket']}, {r['kind']}, "
              f"{r['count']}, {java_string(r['model'])}, {r['accel_memory']});")
        if r["partition"] != 1.0:
            w(f"    b.partition({t}, {r['partition']!r});")
        if r["price"]:
            usd, sid = r["price"]
            w(f"    b.price({t}, {java_string(usd)}, {java_string(sid)});")
    w("    return b.build();")
    w("  }")
    w("}")
    for line in out:
        if len(line) > 100:
            sys.exit(f"generated line longer than 100 columns (google-java-format would wrap it): {line}")
    return "\n".join(out) + "\n"


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--check", action="store_true")
    ap.add_argument("--dump")
    args = ap.parse_args()
    dump, origin = load_dump(args.dump)
    rows, sources, overridden = build(dump)
    text = render(rows, sources, overridden, origin)
    if args.check:
        with open(OUT) as f:
            committed = f.read()
        if committed != text:
            sys.stdout.writelines(difflib.unified_diff(
                committed.splitlines(True), text.splitlines(True),
                "committed CatalogData.java", "generated"))
            print("\nCatalogData.java and the generator disagree: run "
                  ".venv/bin/python scripts/catalog/generate_instance_catalog.py", file=sys.stderr)
            return 1
        print(f"CatalogData.java is current ({len(rows)} types from {origin})")
        return 0
    with open(OUT, "w") as f:
        f.write(text)
    print(f"wrote {os.path.relpath(OUT, ROOT)}: {len(rows)} types from {origin}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
