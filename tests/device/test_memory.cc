#include <fcntl.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#include <catch2/catch.hpp>
#include <cstdint>
#include <cstring>
#include <string>

#include "device/memory.h"
#include "trnccl/trnccl.h"

TEST_CASE("trncclMemAlloc gives page-aligned, writable, findable memory", "[device][memory]") {
  void* p = nullptr;
  REQUIRE(trncclMemAlloc(&p, 10000) == trncclSuccess);
  REQUIRE(p != nullptr);
  CHECK(reinterpret_cast<uintptr_t>(p) % static_cast<uintptr_t>(sysconf(_SC_PAGESIZE)) == 0);
  std::memset(p, 0xab, 10000);
  auto a = trnccl::device::find(static_cast<char*>(p) + 9999);
  REQUIRE(a.has_value());
  CHECK(a->base == p);
  CHECK(a->size >= 10000);
  CHECK_FALSE(trnccl::device::find(static_cast<char*>(p) + 100, a->size).has_value());
  int local = 0;
  CHECK_FALSE(trnccl::device::find(&local).has_value());
  REQUIRE(trncclMemFree(p) == trncclSuccess);
  CHECK_FALSE(trnccl::device::find(p).has_value());
}

TEST_CASE("device memory can be mapped by another process through its fd", "[device][memory]") {
  void* p = nullptr;
  REQUIRE(trncclMemAlloc(&p, 4096) == trncclSuccess);
  auto a = trnccl::device::find(p);
  REQUIRE(a.has_value());
  std::string path = "/proc/" + std::to_string(getpid()) + "/fd/" + std::to_string(a->fd);
  pid_t child = fork();
  if (child == 0) {
    // A different process maps the same pages and writes into them.
    int fd = open(path.c_str(), O_RDWR);
    if (fd < 0) _exit(1);
    void* q = mmap(nullptr, 4096, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
    if (q == MAP_FAILED) _exit(2);
    std::memcpy(q, "neuronlink", 11);
    _exit(0);
  }
  int status = 0;
  REQUIRE(waitpid(child, &status, 0) == child);
  REQUIRE(WIFEXITED(status));
  CHECK(WEXITSTATUS(status) == 0);
  CHECK(std::string(static_cast<char*>(p)) == "neuronlink");
  REQUIRE(trncclMemFree(p) == trncclSuccess);
}

TEST_CASE("trncclMemAlloc/Free reject bad arguments with a message naming them", "[device][memory][errors]") {
  void* p = nullptr;
  CHECK(trncclMemAlloc(nullptr, 16) == trncclInvalidArgument);
  CHECK(std::string(trncclGetLastError(nullptr)).find("'ptr'") != std::string::npos);
  CHECK(trncclMemAlloc(&p, 0) == trncclInvalidArgument);
  CHECK(std::string(trncclGetLastError(nullptr)).find("'size'") != std::string::npos);
  CHECK(trncclMemFree(nullptr) == trncclInvalidArgument);
  int local = 0;
  CHECK(trncclMemFree(&local) == trncclInvalidArgument);
  CHECK(std::string(trncclGetLastError(nullptr)).find("trncclMemAlloc") != std::string::npos);
  REQUIRE(trncclMemAlloc(&p, 64) == trncclSuccess);
  REQUIRE(trncclMemFree(p) == trncclSuccess);
  CHECK(trncclMemFree(p) == trncclInvalidArgument);  // double free
}

TEST_CASE("version and error strings", "[api]") {
  int v = 0;
  REQUIRE(trncclGetVersion(&v) == trncclSuccess);
  CHECK(v == TRNCCL_VERSION);
  CHECK(trncclGetVersion(nullptr) == trncclInvalidArgument);
  for (int r = 0; r < trncclNumResults; ++r)
    CHECK(std::string(trncclGetErrorString(static_cast<trncclResult_t>(r))).size() > 3);
  CHECK(std::string(trncclGetErrorString(static_cast<trncclResult_t>(99))) == "unknown result code");
}
