// trnccl-doctor run as users run it, on this machine (where every check
// passes) and with each check provoked into a problem it must name and say
// how to fix.
#include <unistd.h>

#include <catch2/catch.hpp>
#include <cstdio>
#include <fstream>
#include <nlohmann/json.hpp>
#include <string>

#include "tests/command_run.h"

namespace {

using trnccl::test::Run;

Run run(const std::string& command) { return trnccl::test::runCommand(command); }

// The doctor with `environment` ("NAME=value ..."), no other TRNCCL_* variable
// of the test's own except TRNCCL_CHECK.
Run doctor(const std::string& environment, const std::string& args) {
  return run("env -u TRNCCL_SOCKET_IFNAME -u TRNCCL_TOPO -u TRNCCL_OFI_PROVIDER -u TRNCCL_TRANSPORT " + environment +
             " '" TRNCCL_DOCTOR_PATH "' " + args);
}

const std::string kMpirun = std::string("'") + TRNCCL_MPIEXEC + "' --allow-run-as-root --oversubscribe";
const char* const kChecks[] = {"settings", "shm", "cma", "interface", "ofi", "topology", "consistency"};

// The verdict on the report's line for `check` (text output): "ok: ..." or
// "problem: ...".
std::string lineOf(const std::string& output, const std::string& check) {
  const size_t start = output.find("\n" + check + ":");
  if (start == std::string::npos) return "";
  const size_t verdict = output.find_first_not_of(' ', start + check.size() + 2);
  return output.substr(verdict, output.find('\n', verdict) - verdict);
}

void checkAllOk(const Run& r, int nranks) {
  INFO(r.output);
  CHECK(r.status == 0);
  CHECK(r.output.starts_with("trnccl-doctor: " + std::to_string(nranks) + (nranks == 1 ? " rank" : " ranks")));
  for (const char* check : kChecks) CHECK(lineOf(r.output, check).starts_with("ok: "));
  CHECK(r.output.find("problem") == std::string::npos);
}

// A problem on `check` that names `what` and fixes it with `fix`; status 1.
void checkProblem(const Run& r, const std::string& check, const std::string& what, const std::string& fix) {
  INFO(r.output);
  CHECK(r.status == 1);
  const std::string line = lineOf(r.output, check);
  CHECK(line.starts_with("problem: "));
  CHECK(line.find(what) != std::string::npos);
  CHECK(line.find(" fix: " + fix) != std::string::npos);
}

std::string fileWith(const std::string& text) {
  char path[] = "/tmp/trnccl-doctor-test-XXXXXX";
  const int fd = mkstemp(path);
  REQUIRE(fd >= 0);
  close(fd);
  std::ofstream(path) << text;
  return path;
}

// A rank's /dev/shm segment by docs/memory.md: a 4 KiB head, and per peer a
// FIFO control line pair (128 B), 8 slots of 64 KiB + 64 B and a 512-byte
// announcement table.
std::string segmentMiB(int localRanks) {
  const double bytes = 4096 + (localRanks - 1) * (128 + 8 * (65536 + 64) + 512);
  char text[32];
  std::snprintf(text, sizeof text, "%.1f MiB", bytes / (1 << 20));
  return text;
}

}  // namespace

TEST_CASE("doctor: every check passes on this machine, alone and with -n 4", "[doctor]") {
  checkAllOk(doctor("", ""), 1);
  const Run four = doctor("", "-n 4");
  checkAllOk(four, 4);
  CHECK(lineOf(four.output, "shm").find("the 4 ranks on this host need up to") != std::string::npos);
  CHECK(lineOf(four.output, "shm").find("(" + segmentMiB(4) + " each") != std::string::npos);
  CHECK(lineOf(four.output, "interface").find("reached every rank over it") != std::string::npos);
}

TEST_CASE("doctor --json reports the same checks, per rank", "[doctor]") {
  const Run r = doctor("", "-n 3 --json");
  INFO(r.output);
  REQUIRE(r.status == 0);
  const auto report = nlohmann::json::parse(r.output);
  CHECK(report["ok"] == true);
  CHECK(report["ranks"] == 3);
  REQUIRE(report["checks"].size() == std::size(kChecks));
  for (size_t i = 0; i < std::size(kChecks); ++i) {
    CHECK(report["checks"][i]["check"] == kChecks[i]);
    CHECK(report["checks"][i]["ok"] == true);
  }
  CHECK(report["checks"][1]["findings"][0]["ranks"] == nlohmann::json({0, 1, 2}));
}

TEST_CASE("doctor: an interface that does not exist", "[doctor]") {
  checkProblem(doctor("TRNCCL_SOCKET_IFNAME=nosuch0", "-n 2"), "interface",
               "ranks 0-1: TRNCCL_SOCKET_IFNAME='nosuch0' matches no interface with an IP address; there are: lo",
               "set TRNCCL_SOCKET_IFNAME to an interface every host has");
  // An exact name that exists passes.
  CHECK(lineOf(doctor("TRNCCL_SOCKET_IFNAME==lo", "").output, "interface").starts_with("ok: TRNCCL_SOCKET_IFNAME='=lo' selects lo"));
}

TEST_CASE("doctor: a libfabric provider that is not offered", "[doctor]") {
  checkProblem(doctor("TRNCCL_OFI_PROVIDER=nosuchprovider", ""), "ofi",
               "TRNCCL_OFI_PROVIDER='nosuchprovider' is not a libfabric provider", "name a provider fi_info lists");
  // Named and offered: used; and nothing to fix where ofi is not used.
  CHECK(lineOf(doctor("TRNCCL_OFI_PROVIDER=tcp\\;ofi_rxm", "").output, "ofi")
            .find("would use tcp;ofi_rxm (TRNCCL_OFI_PROVIDER)") != std::string::npos);
  const Run tcp = doctor("TRNCCL_TRANSPORT=tcp TRNCCL_OFI_PROVIDER=nosuchprovider", "");
  CHECK(tcp.status == 0);
  CHECK(lineOf(tcp.output, "ofi").starts_with("ok: not used (TRNCCL_TRANSPORT=tcp)"));
}

TEST_CASE("doctor: a topology that does not fit the rank count", "[doctor]") {
  checkProblem(doctor("TRNCCL_TOPO=trn1.2xlarge", "-n 4"), "topology",
               "ranks 0-3: TRNCCL_TOPO: trn1.2xlarge with 1 instance has 2 NeuronCores; 4 ranks need trn1.2xlarge:2",
               "run as many ranks as the topology has NeuronCores");
  const Run fits = doctor("TRNCCL_TOPO=trn1.2xlarge:2", "-n 4");
  CHECK(fits.status == 0);
  CHECK(lineOf(fits.output, "topology").find("4 NeuronCores on 2 instance(s) places the 4 ranks") != std::string::npos);
}

TEST_CASE("doctor: a ptrace scope that forbids cross-memory attach", "[doctor]") {
  const std::string forbidding = fileWith("3\n"), allowing = fileWith("1\n");
  checkProblem(doctor("", "--ptrace-scope-file " + forbidding), "cma", forbidding + " says 3",
               "allow it (sysctl -w kernel.yama.ptrace_scope=1");
  CHECK(lineOf(doctor("", "--ptrace-scope-file " + allowing).output, "cma")
            .starts_with("ok: ptrace scope 1; process_vm_readv from a peer works"));
  // Without single copy, the scope does not matter.
  CHECK(doctor("TRNCCL_SHM_COPY=fifo", "--ptrace-scope-file " + forbidding).status == 0);
  unlink(forbidding.c_str());
  unlink(allowing.c_str());
}

TEST_CASE("doctor: a TRNCCL_* value that does not parse", "[doctor]") {
  checkProblem(doctor("TRNCCL_ALGO=nosuchalgo", ""), "settings", "TRNCCL_ALGO='nosuchalgo'",
               "correct or unset the variable");
  checkProblem(doctor("TRNCCL_SHM_FIFO_BYTES=lots", ""), "settings", "TRNCCL_SHM_FIFO_BYTES='lots'",
               "correct or unset the variable");
}

TEST_CASE("doctor under mpirun: 3 ranks pass, and ranks with different settings are named", "[doctor][mpi]") {
  const Run three = run(kMpirun + " -np 3 env -u TRNCCL_SOCKET_IFNAME '" TRNCCL_DOCTOR_PATH "'");
  checkAllOk(three, 3);
  CHECK(lineOf(three.output, "consistency").find("3 ranks run trnccl") != std::string::npos);

  const Run mixed = run(kMpirun + " -np 1 -x TRNCCL_ALGO=ring '" TRNCCL_DOCTOR_PATH "' : -np 1 '" TRNCCL_DOCTOR_PATH
                        "' : -np 2 -x TRNCCL_ALGO=mesh '" TRNCCL_DOCTOR_PATH "'");
  INFO(mixed.output);
  CHECK(mixed.status != 0);
  CHECK(lineOf(mixed.output, "consistency") ==
        "problem: TRNCCL_ALGO differs: 'mesh' on ranks 2-3; 'ring' on rank 0; unset on rank 1 fix: give "
        "every rank the same trnccl and the same TRNCCL_* environment (mpirun -x NAME, or export it before "
        "launching)");
}

TEST_CASE("doctor: a /dev/shm too small for the ranks (private 64 KiB tmpfs)", "[.shm-size=64k]") {
  checkProblem(doctor("", "-n 4"), "shm",
               "ranks 0-3: /dev/shm has 64.0 KiB free; the 4 ranks on this host need up to",
               "enlarge /dev/shm (mount -o remount,size=<bytes> /dev/shm; in docker: --shm-size=<bytes>)");
}

TEST_CASE("doctor: a read-only /dev/shm (private tmpfs)", "[.shm-ro]") {
  checkProblem(doctor("", ""), "shm", "cannot make a segment: shm_open(/trnccl-shm-doctor-",
               "/dev/shm must be a writable tmpfs");
}
