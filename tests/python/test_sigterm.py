"""A rank ends promptly and without a crash when terminated (SIGTERM), as
launchers and torch's test harness do once a rank failed: while it waits in
a collective, and while it is exiting because a peer is gone
(scenario_sigterm.py). Debian's torch loads libinfinipath, whose SIGTERM
handler calls exit(); a rank already exiting then deadlocked in exit's own
handlers (about one rank in five here)."""
import random
import signal
import subprocess
import tempfile
import time

from launcher import start_ranks
from scenario_sigterm import READY


def wait_ready(proc):
    for line in proc.stdout:
        if READY in line:
            return
    raise AssertionError(f"the rank exited (status {proc.wait()}) before it was ready")


def end_status(proc, limit_s):
    """The rank's exit status, or None if it is still running after limit_s."""
    try:
        proc.communicate(timeout=limit_s)
        return proc.returncode
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.communicate()
        return None


def test_sigterm_ends_a_rank_blocked_in_a_collective():
    with tempfile.TemporaryDirectory() as tmp:
        ranks = start_ranks("sigterm_blocked", 2, tmp)
        try:
            wait_ready(ranks[0])
            time.sleep(1)  # inside the all-reduce by now
            ranks[0].send_signal(signal.SIGTERM)
            status = end_status(ranks[0], 5)
            # Ended by the signal itself: no exit handlers ran, nothing crashed.
            assert status == -signal.SIGTERM, f"rank 0 ended with status {status} (None: still running after 5 s)"
        finally:
            for r in ranks:
                r.kill()
                r.communicate()


def test_sigterm_ends_ranks_exiting_because_a_peer_is_gone():
    """A peer is killed; the others fail and exit, and are terminated at a
    random moment of that. Each ends within 10 s by the signal or by its own
    error (status 1), never by a crash signal."""
    statuses = []
    for _ in range(6):
        with tempfile.TemporaryDirectory() as tmp:
            ranks = start_ranks("sigterm_busy", 3, tmp)
            for r in ranks:
                wait_ready(r)
            time.sleep(random.uniform(0.2, 1.0))
            ranks[-1].kill()
            time.sleep(random.uniform(0.0, 0.8))
            for r in ranks[:-1]:
                r.send_signal(signal.SIGTERM)
            statuses += [end_status(r, 10) for r in ranks[:-1]]
            ranks[-1].communicate()
    assert all(s in (1, -signal.SIGTERM) for s in statuses), \
        f"exit statuses {statuses} (None: still running after 10 s)"
