"""The backend under torchrun, which sets RANK, WORLD_SIZE, MASTER_ADDR and
MASTER_PORT for env:// (the other init methods: see the other tests)."""
from launcher import run_torchrun


def test_torchrun_2_processes():
    out = run_torchrun("smoke", 2)[0]
    assert "rank 0: smoke passed" in out and "rank 1: smoke passed" in out, out
