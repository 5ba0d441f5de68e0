"""PyTorch's generic distributed test suite (DistributedTest._DistTestBase of
torch/testing/_internal/distributed/distributed_test.py), as upstream's
test/distributed/test_distributed_spawn.py runs it, on trnccl, but with its
ranks forked, as upstream's test_distributed_fork.py ran it until PyTorch
1.12: a spawned rank re-imports torch (about 1.3 s of a core here), which
made the 64 tests of ctest's representative part take 153 s instead of 30.

Environment (read here; the forked ranks inherit what it set up):
  BACKEND      the backend whose skip decisions the suite makes: "trnccl"
               (a plugin backend, with trnccl's features listed in the suite's
               tables) or "gloo".
  SUITE_GROUPS the backend the process groups are created on (default:
               BACKEND). BACKEND=gloo SUITE_GROUPS=trnccl runs gloo's test
               selection on trnccl's process groups.
  WORLD_SIZE   ranks per test (2 or 3 here).
  SUITE_RESULTS a file: one JSON line per test, {"test", "outcome", "detail"}.

Run one test:  BACKEND=trnccl WORLD_SIZE=2 python3 test_distributed_spawn.py -k test_all_reduce_sum
The driver (run_suite.py) runs configurations side by side and compares them.
"""
import json
import os
import sys
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))  # the expecttest stand-in
argv, sys.argv = sys.argv, sys.argv[:1]  # common_utils parses sys.argv when imported

import torch  # noqa: E402
import torch.distributed as dist  # noqa: E402
import trnccl_torch  # noqa: E402,F401  (registers the "trnccl" backend)
from torch.testing._internal.common_distributed import DistTestCases  # noqa: E402

BACKEND = os.environ["BACKEND"]
GROUPS = os.environ.get("SUITE_GROUPS", BACKEND)

if BACKEND == "trnccl":
    # What trnccl implements on CPU tensors, in the suite's own tables.
    for feature in ("plugin", "ddp", "subgroup"):
        DistTestCases.backend_feature[feature].add("trnccl")

if GROUPS != BACKEND:
    # The suite names BACKEND when it creates groups; create them on GROUPS.
    def _on_groups(create):
        def created(*args, backend=None, **kwargs):
            if backend is not None and str(backend).lower() == BACKEND:
                backend = GROUPS
            if args and isinstance(args[0], str) and args[0].lower() == BACKEND:
                args = (GROUPS,) + args[1:]
            return create(*args, backend=backend, **kwargs) if backend is not None else create(*args, **kwargs)
        return created

    dist.init_process_group = _on_groups(dist.init_process_group)
    dist.new_group = _on_groups(dist.new_group)

from torch.testing._internal.distributed.distributed_test import DistributedTest, TestDistBackend  # noqa: E402
import torch.nn.parallel._replicated_tensor_ddp_utils as _replicated_tensor_ddp  # noqa: E402

# Each rank turns on DDP's ReplicatedTensor mode, which imports
# torch.distributed._shard: with Debian's torch 1.13 under Python 3.11 that
# import fails (a dataclass field with a mutable default), whatever the
# backend. The mode stays off, as it is by default outside this suite.
_replicated_tensor_ddp._set_ddp_with_replicated_tensor = lambda value: None


class TestDistBackendForked(TestDistBackend, DistributedTest._DistTestBase):
    def setUp(self):
        super().setUp()
        self._start_processes(torch.multiprocessing.get_context("fork").Process)


class _Recorder(unittest.TextTestResult):
    """Appends each test's outcome to SUITE_RESULTS as it ends."""

    def _record(self, test, outcome, detail=""):
        path = os.environ.get("SUITE_RESULTS")
        if path:
            with open(path, "a") as f:
                f.write(json.dumps({"test": test.id().rsplit(".", 1)[-1], "outcome": outcome,
                                    "detail": detail[-2000:]}) + "\n")

    def addSuccess(self, test):
        super().addSuccess(test)
        self._record(test, "pass")

    def addFailure(self, test, err):
        super().addFailure(test, err)
        self._record(test, "fail", self._exc_info_to_string(err, test))

    def addError(self, test, err):
        super().addError(test, err)
        self._record(test, "error", self._exc_info_to_string(err, test))

    def addSkip(self, test, reason):
        super().addSkip(test, reason)
        self._record(test, "skip", reason)

    def addExpectedFailure(self, test, err):
        super().addExpectedFailure(test, err)
        self._record(test, "pass")

    def addUnexpectedSuccess(self, test):
        super().addUnexpectedSuccess(test)
        self._record(test, "fail", "unexpected success")


if __name__ == "__main__":
    unittest.main(argv=argv, testRunner=unittest.TextTestRunner(resultclass=_Recorder, verbosity=2))
