"""Launches the ranks of a job of rank_main.py and gathers what they said.

Each job is one process per rank (torch's import costs about 2 s a process,
so a job runs a whole scenario of checks). A rank that fails prints its
traceback and exits non-zero; a job that outlives its limit is killed, so a
hang fails the test instead of stalling the suite.
"""
import os
import socket
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
RANK_MAIN = os.path.join(HERE, "rank_main.py")
PYTHON = "/usr/bin/python3"  # the interpreter Debian's PyTorch belongs to


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _report(outputs):
    return "\n".join(f"--- rank {r} (exit {rc}) ---\n{out}" for r, (rc, out) in enumerate(outputs))


def start_ranks(scenario, world_size, tmp, init="file", extra_env=None):
    """Starts `scenario` on `world_size` ranks rendezvousing by `init`
    ("file" in the folder `tmp`, "env" or "tcp"); returns their processes."""
    env = dict(os.environ, WORLD_SIZE=str(world_size), PG_TEST_SCENARIO=scenario, PG_TEST_START_DIR=tmp)
    env.update(extra_env or {})
    if init == "file":
        env["PG_TEST_INIT"] = "file://" + os.path.join(tmp, "rendezvous")
    elif init == "tcp":
        env["PG_TEST_INIT"] = f"tcp://127.0.0.1:{free_port()}"
    elif init == "env":
        env.update(PG_TEST_INIT="env://", MASTER_ADDR="127.0.0.1", MASTER_PORT=str(free_port()))
    else:
        raise ValueError(f"init {init!r}")
    return [subprocess.Popen([PYTHON, RANK_MAIN], env=dict(env, RANK=str(rank)), stdout=subprocess.PIPE,
                             stderr=subprocess.STDOUT, text=True) for rank in range(world_size)]


def run_job(scenario, world_size, init="file", limit_s=120, extra_env=None):
    """Runs `scenario` on `world_size` ranks (see start_ranks); returns each
    rank's output, asserting all passed."""
    with tempfile.TemporaryDirectory() as tmp:
        return _collect(start_ranks(scenario, world_size, tmp, init, extra_env), limit_s)


def run_torchrun(scenario, nproc, limit_s=120):
    """The same job started by torchrun (--standalone picks a free port).
    --redirects/--tee 1 (stdout): their default "0", and "3", break torch
    1.13's torchrun under Python 3.11, which iterates neither zero-valued nor
    composite enum.IntFlag members."""
    env = dict(os.environ, PG_TEST_SCENARIO=scenario, PG_TEST_INIT="env://")
    with tempfile.TemporaryDirectory() as logs:
        proc = subprocess.Popen([PYTHON, "-m", "torch.distributed.run", "--standalone", f"--nproc_per_node={nproc}",
                                 "--redirects", "1", "--tee", "1", "--log_dir", logs, RANK_MAIN],
                                env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
        return _collect([proc], limit_s)


def _collect(procs, limit_s):
    outputs = []
    for p in procs:
        try:
            out, _ = p.communicate(timeout=limit_s)
        except subprocess.TimeoutExpired:
            for q in procs:
                q.kill()
            out, _ = p.communicate()
            outputs.append((None, out))
            raise AssertionError(f"job still running after {limit_s} s (hung?)\n" + _report(outputs))
        outputs.append((p.returncode, out))
    assert all(rc == 0 for rc, _ in outputs), "a rank failed\n" + _report(outputs)
    sys.stdout.write(_report(outputs))
    return [out for _, out in outputs]
