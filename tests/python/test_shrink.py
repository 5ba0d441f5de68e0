"""A DDP training loop that survives a lost rank (scenario_shrink.py): 3
ranks, rank 2 killed mid-training, the other two shrink and go on."""
import signal
import tempfile

from launcher import _report, start_ranks


def test_ddp_goes_on_after_a_rank_is_killed():
    with tempfile.TemporaryDirectory() as tmp:
        procs = start_ranks("shrink_ddp", 3, tmp, extra_env={"PG_TEST_TIMEOUT_S": "30"})
        outputs = []
        for p in procs:
            out, _ = p.communicate(timeout=150)
            outputs.append((p.returncode, out))
    report = _report(outputs)
    assert outputs[2][0] == -signal.SIGKILL, "rank 2 was to be killed\n" + report
    for rank in (0, 1):
        assert outputs[rank][0] == 0, report
        assert "parameters equal" in outputs[rank][1], report
    print(report)
