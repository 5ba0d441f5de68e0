// How a transport enters the one list of transports (factory.h): its folder's
// main source registers it with one line,
//   TRNCCL_REGISTER_TRANSPORT(shm, {"shm", createShmTransport, Reach::Instance, 0, {...}})
// (inside namespace trnccl::transport; the first argument is its folder's
// name), and that name goes into TRNCCL_TRANSPORTS in
// transports/transports.cmake, whose order is the list's order.
//
// Why not static initialisers: libtrnccl.a is an archive, and a linker leaves
// out the members nothing references, initialisers included. The macro
// defines a function named after the folder that the factory calls from a list
// CMake writes: each transport is referenced, so linked; a listed folder
// without its macro is a link error, not a missing transport.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "transports/transport.h"

namespace trnccl::transport {

enum class Reach {
  Instance,  // ranks of one instance (one host) only: shared memory
  Network,   // ranks of any instance, across network namespaces and hosts
};

// One way a transport can carry bytes: a value of its path setting.
struct Path {
  std::string value;
  bool crossesHosts;  // false: between processes of one host only
  // false: the path is known to deliver corrupted or misplaced bytes now and
  // then, which the transport catches (an error, never wrong data); tests
  // accept that error there, and only that one.
  bool keepsBytesIntact = true;
};

// What a transport declares of itself, for the tests, benchmarks and tools
// that iterate the list rather than name transports.
struct Capabilities {
  // The setting that picks how it carries bytes (ofi: TRNCCL_OFI_PROVIDER),
  // and the paths tests and benchmarks run it over, the first the one a
  // test of a single path takes; null: one way only.
  const char* pathSetting = nullptr;
  std::vector<Path> paths;
  // Stripes each message over several NICs (ofi: TRNCCL_OFI_RAILS).
  bool rails = false;
  // Lets peers read registered memory in place (Transport::registerRegion).
  bool registration = false;

  // Path::keepsBytesIntact of the path `value`; true for one not declared.
  bool keepsBytesIntact(const std::string& value) const {
    for (const Path& path : paths)
      if (path.value == value) return path.keepsBytesIntact;
    return true;
  }
};

struct TransportEntry {
  const char* name;
  std::unique_ptr<Transport> (*create)(const Options&);
  Reach reach;
  // The automatic choice takes, of the transports that reach far enough,
  // the one with the lowest rank.
  int autoRank;
  Capabilities capabilities;
};

}  // namespace trnccl::transport

// The function through which the folder `folder` registers its transport.
#define TRNCCL_TRANSPORT_OF(folder) transportOf_##folder

#define TRNCCL_REGISTER_TRANSPORT(folder, ...)  \
  TransportEntry TRNCCL_TRANSPORT_OF(folder)(); \
  TransportEntry TRNCCL_TRANSPORT_OF(folder)() { return __VA_ARGS__; }
