"""batch_isend_irecv with each rank's receive posted before its send
(scenario_p2p.py). Without the coalescing hooks every rank waits in its
receive until the process group's timeout (20 s here)."""
from launcher import run_job

TIMEOUT = {"PG_TEST_TIMEOUT_S": "20"}


def test_batch_isend_irecv_2_ranks():
    run_job("batch_p2p", 2, init="file", limit_s=90, extra_env=TIMEOUT)


def test_batch_isend_irecv_3_ranks():
    run_job("batch_p2p", 3, init="file", limit_s=90, extra_env=TIMEOUT)
