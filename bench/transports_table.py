#!/usr/bin/env python3
"""All-reduce across two emulated instances over every network transport,
beside the peers it must be judged against, all measured in one run. The
transports and their paths (libfabric providers) are those the build lists
(trnccl-doctor --transports).

Two ranks, one per instance of trn1.2xlarge:2 (TRNCCL_RANK_ORDER=0,2), so
every byte crosses the network transport; 64 MiB of float by default. For
each transport and libfabric provider it measures, in interleaved rounds so
that a noisy moment hurts every column alike:
  - trnccl's all-reduce bus bandwidth (trnccl-perf under mpirun, processes),
  - for ofi: raw libfabric tagged bandwidth per direction on the same provider
    (trnccl-ofi-bw: both ranks send at once, as a 2-rank all-reduce does),
  - Gloo's ring all-reduce over TCP (trnccl-gloo-allreduce).
and prints a Markdown table of medians and ratios.

Usage: bench/transports_table.py [--rounds N] [--size 64M] [--build DIR]
"""
import argparse
import json
import os
import re
import statistics
import subprocess
import sys
import tempfile

# The raw baseline measures libfabric: it applies to the paths of this setting.
LIBFABRIC_PROVIDER = "TRNCCL_OFI_PROVIDER"


def networks(build):
    """Every network transport of the build over each path it declares
    (trnccl-doctor --transports): [(transport, path setting, path)], the
    setting and path None for a transport of one path."""
    listed = json.loads(run([f"{build}/bin/trnccl-doctor", "--transports"]))
    return [(t["name"], t["path_setting"], path["value"]) if path else (t["name"], None, None)
            for t in listed if t["reach"] == "network"
            for path in (t["paths"] or [None])]


def human(size):
    """'64M' -> '64 MiB', as the README writes sizes."""
    number, unit = re.fullmatch(r"(\d+)([KMG]?)", size).groups()
    return f"{number} {unit}iB" if unit else f"{number} B"


def run(command, env=None):
    done = subprocess.run(command, env=env, capture_output=True, text=True, timeout=600)
    if done.returncode != 0:
        sys.exit(f"{' '.join(command)} failed ({done.returncode}):\n{done.stdout}\n{done.stderr}")
    return done.stdout


def last_row_column(text, column):
    rows = [line.split() for line in text.splitlines() if line.strip() and not line.startswith("#")]
    return float(rows[-1][column])


def trnccl_busbw(build, size, transport, setting, path):
    env = dict(os.environ, TRNCCL_TOPO="trn1.2xlarge:2", TRNCCL_RANK_ORDER="0,2", TRNCCL_TRANSPORT=transport)
    if setting:
        env[setting] = path
    with tempfile.NamedTemporaryFile(suffix=".json") as report:
        run(["mpirun", "--allow-run-as-root", "--oversubscribe", "--bind-to", "none", "-np", "2",
             "-x", "TRNCCL_TOPO", "-x", "TRNCCL_RANK_ORDER", "-x", "TRNCCL_TRANSPORT"]
            + (["-x", setting] if setting else [])
            + [f"{build}/bin/trnccl-perf", "all_reduce", "-b", size, "-e", size, "-w", "2", "-n", "10",
               "-J", report.name], env)
        row = json.load(open(report.name))["rows"][-1]
        return row["out_of_place"]["busbw_gbps"], row["algorithm"]


def raw_ofi(build, size, provider):
    return last_row_column(run([f"{build}/bin/trnccl-ofi-bw", "-p", provider, "-b", size, "-e", size,
                                "-w", "2", "-n", "10"]), 2)


def gloo(build, size):
    return last_row_column(run([f"{build}/bin/trnccl-gloo-allreduce", "-b", size, "-e", size,
                                "-w", "2", "-n", "10"]), 6)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--size", default="64M")
    parser.add_argument("--build", default="build")
    args = parser.parse_args()
    nets = networks(args.build)
    samples = {}
    algorithms = {}
    for _ in range(args.rounds):
        samples.setdefault("gloo", []).append(gloo(args.build, args.size))
        for transport, setting, path in nets:
            busbw, algorithms[(transport, path)] = trnccl_busbw(args.build, args.size, transport, setting, path)
            samples.setdefault((transport, path), []).append(busbw)
            if setting == LIBFABRIC_PROVIDER:
                samples.setdefault(("raw", path), []).append(raw_ofi(args.build, args.size, path))
    med = {key: statistics.median(values) for key, values in samples.items()}
    print(f"All-reduce of {human(args.size)} float, 2 ranks on 2 emulated instances; medians of {args.rounds} rounds "
          f"(each the median of 10 calls); GB/s")
    print()
    print("| transport | provider | algorithm | trnccl busbw | raw libfabric (per direction) | trnccl / raw "
          "| Gloo TCP busbw | trnccl / Gloo |")
    print("|---|---|---|---:|---:|---:|---:|---:|")
    for transport, setting, path in nets:
        ours = med[(transport, path)]
        raw = med.get(("raw", path)) if setting == LIBFABRIC_PROVIDER else None
        raw_cells = f"{raw:.2f} | {ours / raw:.2f}" if raw else "- | -"
        print(f"| {transport} | {path or '-'} | {algorithms[(transport, path)]} | {ours:.2f} | {raw_cells} "
              f"| {med['gloo']:.2f} | {ours / med['gloo']:.2f} |")


if __name__ == "__main__":
    main()
