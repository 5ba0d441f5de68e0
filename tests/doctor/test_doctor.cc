// trnccl-doctor run as users run it, on this machine (where every check
// passes) and with each check provoked into a problem it must name and say
// how to fix.
#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>
#include <string>

#include "tests/doctor/doctor_run.h"
#include "transports/factory.h"

using namespace trnccl::test;

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
  CHECK(lineOf(doctor("TRNCCL_SOCKET_IFNAME==lo", "").output, "interface")
            .starts_with("ok: TRNCCL_SOCKET_IFNAME='=lo' selects lo"));
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
  checkProblem(doctor("", "-n 4"), "shm", "ranks 0-3: /dev/shm has 64.0 KiB free; the 4 ranks on this host need up to",
               "enlarge /dev/shm (mount -o remount,size=<bytes> /dev/shm; in docker: --shm-size=<bytes>)");
}

TEST_CASE("doctor: a read-only /dev/shm (private tmpfs)", "[.shm-ro]") {
  checkProblem(doctor("", ""), "shm", "cannot make a segment: shm_open(/trnccl-shm-doctor-",
               "/dev/shm must be a writable tmpfs");
}

TEST_CASE("doctor refuses bad command lines with the usage and status 2", "[doctor]") {
  for (const char* args : {"--bogus", "-n 0", "-n", "--timeout-ms soon", "--rank 0 --nranks 2",
                           "--rendezvous /tmp --rank 2 --nranks 2", "-n 2 --rendezvous /tmp --rank 0 --nranks 1"}) {
    const Run r = doctor("", args);
    INFO(args << "\n" << r.output);
    CHECK(r.status == 2);
    CHECK(r.output.find("usage: trnccl-doctor") != std::string::npos);
  }
  const Run help = doctor("", "--help");
  CHECK(help.status == 0);
  CHECK(help.output.starts_with("usage: trnccl-doctor"));
  // Under mpirun, mpirun starts the ranks.
  const Run both = run(kMpirun + " -np 1 '" TRNCCL_DOCTOR_PATH "' -n 2");
  INFO(both.output);
  CHECK(both.output.find("under mpirun, mpirun starts the ranks") != std::string::npos);
}

TEST_CASE("doctor --transports lists the factory's transports, in its order, with what each declares", "[doctor]") {
  const Run r = doctor("", "--transports");
  INFO(r.output);
  REQUIRE(r.status == 0);
  const auto listed = nlohmann::json::parse(r.output);
  const auto& registered = trnccl::transport::transports();
  REQUIRE(listed.size() == registered.size());
  for (size_t i = 0; i < registered.size(); ++i) {
    const trnccl::transport::TransportEntry& t = registered[i];
    const trnccl::transport::Capabilities& declared = t.capabilities;
    CHECK(listed[i]["name"] == t.name);
    CHECK(listed[i]["reach"] == (t.reach == trnccl::transport::Reach::Network ? "network" : "instance"));
    CHECK(listed[i]["auto_rank"] == t.autoRank);
    CHECK(listed[i]["path_setting"] == (declared.pathSetting ? nlohmann::json(declared.pathSetting) : nullptr));
    REQUIRE(listed[i]["paths"].size() == declared.paths.size());
    for (size_t p = 0; p < declared.paths.size(); ++p) {
      CHECK(listed[i]["paths"][p]["value"] == declared.paths[p].value);
      CHECK(listed[i]["paths"][p]["crosses_hosts"] == declared.paths[p].crossesHosts);
    }
    CHECK(listed[i]["rails"] == declared.rails);
    CHECK(listed[i]["registration"] == declared.registration);
  }
}
