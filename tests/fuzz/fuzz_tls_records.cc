// What an outsider on the wire can send to an encrypted trnccl socket (a
// server TlsSession, base/tls.h): the first byte picks whether the rest
// arrives in place of a client's handshake (byte even), or as records after a
// real handshake with a client holding the key (byte odd). Either way the
// session may only fail with trnccl::Error (RemoteError naming the peer) and
// never hands a byte on: no input can forge the key's authentication.
#include <fcntl.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cstdint>
#include <memory>
#include <string>

#include "base/error.h"
#include "base/tls.h"
#include "tests/fuzz/fuzz_check.h"

namespace {

using namespace trnccl;
using namespace trnccl::net;

std::shared_ptr<const TlsContext> context() {
  static const auto shared = [] {
    TlsKey key{};
    for (size_t i = 0; i < key.size(); ++i) key[i] = static_cast<uint8_t>(i * 7 + 1);
    return std::make_shared<const TlsContext>(key);
  }();
  return shared;
}

struct Fds {
  int client = -1, server = -1;
  Fds() {
    int fds[2];
    FUZZ_CHECK(socketpair(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0, fds) == 0);
    client = fds[0];
    server = fds[1];
  }
  ~Fds() {
    close(client);
    close(server);
  }
};

// Completes a handshake between a client session on fds.client and `server`.
bool handshake(const Fds& fds, TlsSession& server) {
  TlsSession client(context(), fds.client, TlsRole::Client);
  const char byte = 'x';
  const iovec part{const_cast<char*>(&byte), 1};
  char got = 0;
  bool sent = false;
  for (int round = 0; round < 100; ++round) {
    if (!sent) sent = client.write({&part, 1}, "client") == 1;
    if (server.read(&got, 1, "server") == 1) return sent && got == byte;
  }
  return false;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size == 0 || size > 64 * 1024) return 0;  // the socket pair's buffer holds it
  const bool afterHandshake = (data[0] & 1) != 0;
  Fds fds;
  TlsSession server(context(), fds.server, TlsRole::Server);
  if (afterHandshake) FUZZ_CHECK(handshake(fds, server));
  // The client session is gone: its socket now carries the outsider's bytes.
  FUZZ_CHECK(write(fds.client, data + 1, size - 1) == static_cast<ssize_t>(size - 1));
  shutdown(fds.client, SHUT_WR);
  char buffer[4096];
  try {
    for (int round = 0; round < 10000; ++round) FUZZ_CHECK(server.read(buffer, sizeof buffer, "outsider") == 0);
    FUZZ_CHECK(false && "the session neither failed nor saw the end");
  } catch (const Error& e) {
    FUZZ_CHECK(e.code() == trncclRemoteError || e.code() == trncclSystemError);
    FUZZ_CHECK(std::string(e.what()).find("outsider") != std::string::npos);
  }
  return 0;
}
