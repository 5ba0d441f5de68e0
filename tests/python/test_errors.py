"""Errors are Python exceptions with trnccl's message, not hangs
(scenario_errors.py)."""
from launcher import run_job


def test_mismatched_sizes_raise():
    run_job("mismatch", 2, init="file", limit_s=60)


def test_mismatched_sizes_raise_without_trnccl_check():
    run_job("mismatch", 2, init="file", limit_s=60, extra_env={"TRNCCL_CHECK": "0"})


def test_timeout_of_init_process_group_bounds_a_collective():
    # The communicator's timeout is the process group's: 3 s, not trnccl's default of 5 minutes.
    run_job("timeout", 2, init="file", limit_s=60,
            extra_env={"PG_TEST_TIMEOUT_S": "3", "PG_TEST_TIMEOUT_OP": "all_reduce"})


def test_barrier_timeout_is_worded_as_torch_tests_expect():
    # torch's test_barrier_timeout_global: 1 s, rank 0 alone in the barrier.
    run_job("timeout", 2, init="file", limit_s=60,
            extra_env={"PG_TEST_TIMEOUT_S": "1", "PG_TEST_TIMEOUT_OP": "barrier"})
