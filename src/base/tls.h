// TLS 1.3 with an external pre-shared key (OpenSSL 3) for the sockets trnccl
// owns. Both ends prove knowledge of the key in the handshake (the PSK binder
// and Finished messages), agree a fresh (EC)DHE key per connection, and from
// then on every record is AES-128-GCM authenticated: a byte changed, dropped,
// replayed or reordered on the wire fails its record, and the session says so
// instead of handing the bytes on. No certificates, no session tickets, no
// early data (so nothing can be replayed into a new connection). The kernel's
// TLS offload (kTLS) is asked for; OpenSSL falls back to user-space records
// when the running kernel lacks it.
//
// A TlsSession works on a non-blocking socket much as the kernel's socket
// does: write() returns the bytes it took (0: would block) and read() what
// arrived (0: nothing yet). One rule more (OpenSSL's): after write() took
// less than offered, the next write() must offer the rest again, the same
// bytes from the same place on (they may have moved); trnccl's senders all
// finish a frame once begun. wantedEvents() says which poll() event the
// session waits for, which in the handshake may be the other direction.
#pragma once

#include <sys/uio.h>

#include <array>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <vector>

typedef struct ssl_ctx_st SSL_CTX;
typedef struct ssl_st SSL;

namespace trnccl::net {

// The 32-byte key TLS uses, derived (HKDF-SHA256) from the user's key.
using TlsKey = std::array<uint8_t, 32>;

enum class TlsRole { Client, Server };

// An OpenSSL context set up for PSK-only TLS 1.3. Immutable once made;
// shared by every session made from it.
class TlsContext {
 public:
  // Throws Error(SystemError) if OpenSSL cannot set it up.
  explicit TlsContext(const TlsKey& key);
  ~TlsContext();
  TlsContext(const TlsContext&) = delete;
  TlsContext& operator=(const TlsContext&) = delete;

  SSL_CTX* get() const { return context_; }
  const TlsKey& key() const { return key_; }

 private:
  SSL_CTX* context_ = nullptr;
  TlsKey key_;
};

class TlsSession {
 public:
  // Starts a session on connected socket `fd` (the handshake runs within the
  // first read() or write()). `context` must outlive the session.
  TlsSession(std::shared_ptr<const TlsContext> context, int fd, TlsRole role);
  ~TlsSession();  // sends close_notify if it can without waiting
  TlsSession(const TlsSession&) = delete;
  TlsSession& operator=(const TlsSession&) = delete;

  // `peer` names the other end in errors: RemoteError for a closed or reset
  // connection, a failed handshake (wrong key, not TLS) or a record that
  // failed authentication; SystemError for a local failure.
  size_t write(std::span<const iovec> parts, const std::string& peer);
  size_t read(void* data, size_t bytes, const std::string& peer);

  short wantedEvents(short usual) const;
  // Decrypted bytes a read() returns without the socket becoming readable.
  bool hasBuffered() const;
  // Whether the session failed on TLS itself (handshake or authentication),
  // as opposed to the connection closing.
  bool failed() const { return failed_; }
  bool handshakeDone() const;
  bool kernelOffload() const;

 private:
  enum class Want { Nothing, Read, Write };
  void succeeded();
  // Handles a failed SSL call; returns normally only for "would block".
  void onFailure(int result, const std::string& peer, const char* doing);

  std::shared_ptr<const TlsContext> context_;
  SSL* ssl_ = nullptr;
  Want want_ = Want::Nothing;
  bool failed_ = false;
  bool established_ = false;       // the handshake ended (OpenSSL forgets once a record fails)
  std::vector<std::byte> gather_;  // small parts gathered into one record
};

// What OpenSSL's error queue says, e.g. "decryption failed or bad record
// mac"; clears it. `fallback` when the queue is empty.
std::string takeOpenSslError(const char* fallback);

}  // namespace trnccl::net
