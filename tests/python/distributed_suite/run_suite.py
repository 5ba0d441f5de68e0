#!/usr/bin/python3
"""Runs PyTorch's distributed test suite (test_distributed_spawn.py) under
several configurations and compares them test by test.

Configurations:
  gloo            gloo's process groups, gloo's skip decisions (the reference)
  trnccl          trnccl as a plugin backend (BACKEND=trnccl)
  trnccl-as-gloo  gloo's skip decisions, process groups created on trnccl

  run_suite.py --world-size 2 --configs gloo,trnccl-as-gloo            # everything (about 40 min a configuration when ranks were spawned)
  run_suite.py --world-size 2 --configs trnccl,trnccl-as-gloo --tests representative.txt --expect-pass

Writes one JSON-lines file per configuration into --out, then a table of the
tests whose outcome differs between configurations. Exit status 1 when a test
that passes with gloo does not pass with a trnccl configuration, or
(--expect-pass) when a listed test fails on a trnccl configuration or passes
on none (a skip, for a reason the suite gives, is not a failure).
"""
import argparse
import collections
import json
import os
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
SUITE = os.path.join(HERE, "test_distributed_spawn.py")
CONFIGS = {
    "gloo": {"BACKEND": "gloo"},
    "trnccl": {"BACKEND": "trnccl"},
    "trnccl-as-gloo": {"BACKEND": "gloo", "SUITE_GROUPS": "trnccl"},
}


def run_config(config, world_size, tests, out_dir, limit_s):
    results = os.path.join(out_dir, f"{config}-ws{world_size}.jsonl")
    if os.path.exists(results):
        os.remove(results)
    env = dict(os.environ, WORLD_SIZE=str(world_size), SUITE_RESULTS=results, **CONFIGS[config])
    # "*.name" matches the whole test name (a plain -k matches substrings).
    selection = [arg for name in tests for arg in ("-k", "*." + name)]
    with open(os.path.join(out_dir, f"{config}-ws{world_size}.log"), "w") as log:
        try:
            subprocess.run([sys.executable, SUITE] + selection, env=env, stdout=log, stderr=subprocess.STDOUT,
                           timeout=limit_s, check=False)
        except subprocess.TimeoutExpired:
            log.write(f"\nrun_suite: stopped after {limit_s} s\n")
    outcomes = collections.OrderedDict()
    if os.path.exists(results):
        with open(results) as f:
            for line in f:
                record = json.loads(line)
                outcomes[record["test"]] = record
    return outcomes


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--world-size", type=int, default=2)
    parser.add_argument("--configs", default="gloo,trnccl,trnccl-as-gloo")
    parser.add_argument("--tests", help="a file of test names (one a line, # comments): run only those")
    parser.add_argument("--expect-pass", action="store_true",
                        help="every listed test must pass on a trnccl configuration and fail on none")
    parser.add_argument("--out", help="folder for results and logs (default: a temporary one)")
    parser.add_argument("--limit", type=int, default=6 * 3600, help="seconds a configuration may take")
    args = parser.parse_args()

    tests = []
    if args.tests:
        with open(args.tests) as f:
            tests = [line.split("#")[0].strip() for line in f if line.split("#")[0].strip()]
    out_dir = args.out or tempfile.mkdtemp(prefix="torch-suite-")
    os.makedirs(out_dir, exist_ok=True)
    configs = args.configs.split(",")
    unknown = [c for c in configs if c not in CONFIGS]
    if unknown:
        parser.error(f"unknown configuration(s) {unknown}; known: {list(CONFIGS)}")

    runs = {c: run_config(c, args.world_size, tests, out_dir, args.limit) for c in configs}
    names = sorted({name for outcomes in runs.values() for name in outcomes} | set(tests))
    counts = {c: collections.Counter(r["outcome"] for r in runs[c].values()) for c in configs}
    print(f"world size {args.world_size}, results in {out_dir}")
    for c in configs:
        print(f"  {c:16s} " + ", ".join(f"{k} {v}" for k, v in sorted(counts[c].items())))

    def outcome(c, name):
        return runs[c].get(name, {}).get("outcome", "missing")

    bad = []
    differing = [n for n in names if len({outcome(c, n) for c in configs}) > 1]
    if differing:
        print("\n" + "test".ljust(60) + "".join(c.ljust(16) for c in configs))
        for n in differing:
            print(n.ljust(60) + "".join(outcome(c, n).ljust(16) for c in configs))
    for c in configs:
        if c == "gloo":
            continue
        for n in names:
            lost = "gloo" in runs and outcome("gloo", n) == "pass" and outcome(c, n) != "pass"
            unmet = args.expect_pass and n in tests and outcome(c, n) not in ("pass", "skip")
            if lost or unmet:
                bad.append((c, n))
                detail = runs[c].get(n, {}).get("detail", "")
                print(f"\n--- {n} on {c}: {outcome(c, n)}\n{detail}")
    if args.expect_pass:
        for n in tests:
            if all(outcome(c, n) != "pass" for c in configs if c != "gloo"):
                print(f"\n--- {n} passed on no trnccl configuration: " +
                      ", ".join(f"{c} {outcome(c, n)}" for c in configs))
                bad.append(("", n))
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
