#include "base/tls.h"

#include <openssl/err.h>
#include <openssl/ssl.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <ctime>
#include <optional>

#include "base/error.h"

namespace trnccl::net {

namespace {

constexpr unsigned char kIdentity[] = "trnccl-psk-v1";
constexpr size_t kIdentityBytes = sizeof(kIdentity) - 1;
constexpr unsigned char kAes128GcmSha256[] = {0x13, 0x01};
// One record's plaintext: a write() takes at most this per SSL call.
constexpr size_t kRecordBytes = 16384;
// What one write() takes at most, so that other connections get their turn.
constexpr size_t kWriteBudgetBytes = 256 * 1024;

SSL_SESSION* makeSession(SSL* ssl) {
  const auto* context = static_cast<const TlsContext*>(SSL_CTX_get_app_data(SSL_get_SSL_CTX(ssl)));
  const SSL_CIPHER* cipher = SSL_CIPHER_find(ssl, kAes128GcmSha256);
  SSL_SESSION* session = cipher ? SSL_SESSION_new() : nullptr;
  if (session == nullptr) return nullptr;
  if (!SSL_SESSION_set1_master_key(session, context->key().data(), context->key().size()) ||
      !SSL_SESSION_set_cipher(session, cipher) || !SSL_SESSION_set_protocol_version(session, TLS1_3_VERSION)) {
    SSL_SESSION_free(session);
    return nullptr;
  }
  return session;
}

int useSession(SSL* ssl, const EVP_MD* md, const unsigned char** id, size_t* idLength, SSL_SESSION** session) {
  *session = makeSession(ssl);
  if (*session == nullptr) return 0;
  if (md != nullptr && md != SSL_CIPHER_get_handshake_digest(SSL_SESSION_get0_cipher(*session))) {
    SSL_SESSION_free(*session);  // a retry for another hash: ours does not fit
    *session = nullptr;
    return 1;
  }
  *id = kIdentity;
  *idLength = kIdentityBytes;
  return 1;
}

int findSession(SSL* ssl, const unsigned char* id, size_t idLength, SSL_SESSION** session) {
  *session = nullptr;
  if (idLength != kIdentityBytes || std::memcmp(id, kIdentity, idLength) != 0) return 1;  // unknown: refused
  *session = makeSession(ssl);
  return *session != nullptr ? 1 : 0;
}

// OpenSSL writes with write(2), which raises SIGPIPE on a connection the peer
// reset; the library must not kill its host process. Blocks the signal in
// this thread for the call and swallows one it raised (one that was not
// blocked before and is pending now can only be the call's own).
class SigpipeGuard {
 public:
  SigpipeGuard() {
    sigset_t pipe = pipeSet();
    pthread_sigmask(SIG_BLOCK, &pipe, &old_);
  }
  ~SigpipeGuard() {
    if (sigismember(&old_, SIGPIPE) != 1) {
      sigset_t pending;
      sigpending(&pending);
      if (sigismember(&pending, SIGPIPE) == 1) {
        sigset_t pipe = pipeSet();
        const timespec now{0, 0};
        sigtimedwait(&pipe, nullptr, &now);
      }
    }
    pthread_sigmask(SIG_SETMASK, &old_, nullptr);
  }
  SigpipeGuard(const SigpipeGuard&) = delete;
  SigpipeGuard& operator=(const SigpipeGuard&) = delete;

 private:
  static sigset_t pipeSet() {
    sigset_t pipe;
    sigemptyset(&pipe);
    sigaddset(&pipe, SIGPIPE);
    return pipe;
  }
  sigset_t old_;
};

}  // namespace

std::string takeOpenSslError(const char* fallback) {
  std::string text;
  while (unsigned long code = ERR_get_error()) {
    const char* reason = ERR_reason_error_string(code);
    if (!text.empty()) text += "; ";
    text += reason != nullptr ? reason : "error " + std::to_string(code);
  }
  return text.empty() ? fallback : text;
}

// ---- TlsContext -------------------------------------------------------------

TlsContext::TlsContext(const TlsKey& key) : key_(key) {
  context_ = SSL_CTX_new(TLS_method());
  auto fail = [&](const char* doing) {
    std::string why = takeOpenSslError("unknown error");
    SSL_CTX_free(context_);
    context_ = nullptr;
    throwError(trncclSystemError, std::string("OpenSSL could not ") + doing + ": " + why);
  };
  if (context_ == nullptr) fail("create a TLS context");
  if (!SSL_CTX_set_min_proto_version(context_, TLS1_3_VERSION) ||
      !SSL_CTX_set_max_proto_version(context_, TLS1_3_VERSION) ||
      !SSL_CTX_set_ciphersuites(context_, "TLS_AES_128_GCM_SHA256") || !SSL_CTX_set_num_tickets(context_, 0))
    fail("restrict TLS to 1.3 with AES-128-GCM");
  SSL_CTX_set_options(context_, SSL_OP_ENABLE_KTLS | SSL_OP_NO_TICKET | SSL_OP_IGNORE_UNEXPECTED_EOF);
  SSL_CTX_set_mode(context_, SSL_MODE_ACCEPT_MOVING_WRITE_BUFFER);
  SSL_CTX_clear_mode(context_, SSL_MODE_AUTO_RETRY);
  SSL_CTX_set_session_cache_mode(context_, SSL_SESS_CACHE_OFF);
  SSL_CTX_set_max_early_data(context_, 0);
  SSL_CTX_set_app_data(context_, this);
  SSL_CTX_set_psk_use_session_callback(context_, useSession);
  SSL_CTX_set_psk_find_session_callback(context_, findSession);
}

TlsContext::~TlsContext() {
  SSL_CTX_free(context_);
  OPENSSL_cleanse(key_.data(), key_.size());
}

// ---- TlsSession -------------------------------------------------------------

TlsSession::TlsSession(std::shared_ptr<const TlsContext> context, int fd, TlsRole role) : context_(std::move(context)) {
  ssl_ = SSL_new(context_->get());
  if (ssl_ == nullptr || !SSL_set_fd(ssl_, fd)) {
    SSL_free(ssl_);
    throwError(trncclSystemError, "OpenSSL could not start a TLS session: " + takeOpenSslError("unknown error"));
  }
  if (role == TlsRole::Client) {
    SSL_set_connect_state(ssl_);
    want_ = Want::Write;  // the ClientHello
  } else {
    SSL_set_accept_state(ssl_);
    want_ = Want::Read;
  }
}

TlsSession::~TlsSession() {
  if (handshakeDone() && !failed_) {
    SigpipeGuard guard;
    SSL_shutdown(ssl_);  // close_notify, if the kernel takes it now
  }
  SSL_free(ssl_);
  ERR_clear_error();
}

bool TlsSession::handshakeDone() const { return SSL_is_init_finished(ssl_) == 1; }

void TlsSession::succeeded() {
  want_ = Want::Nothing;
  if (!established_) established_ = handshakeDone();
}

bool TlsSession::kernelOffload() const { return BIO_get_ktls_send(SSL_get_wbio(ssl_)) == 1; }

bool TlsSession::hasBuffered() const { return SSL_pending(ssl_) > 0; }

short TlsSession::wantedEvents(short usual) const {
  if (want_ == Want::Read && !handshakeDone()) return POLLIN;
  if (want_ == Want::Write && !handshakeDone()) return POLLOUT;
  return usual;
}

void TlsSession::onFailure(int result, const std::string& peer, const char* doing) {
  const int error = SSL_get_error(ssl_, result);
  const int err = errno;
  switch (error) {
    case SSL_ERROR_WANT_READ:
    case SSL_ERROR_WANT_WRITE:
      want_ = error == SSL_ERROR_WANT_READ ? Want::Read : Want::Write;
      if (!established_) established_ = handshakeDone();
      return;
    case SSL_ERROR_ZERO_RETURN:
      ERR_clear_error();
      throwError(trncclRemoteError, "connection to " + peer + " was closed by the peer");
    case SSL_ERROR_SYSCALL:
      ERR_clear_error();
      if (err == 0 || err == ECONNRESET || err == EPIPE || err == ENOTCONN)
        throwError(trncclRemoteError,
                   "connection to " + peer + " was " + (err == ECONNRESET ? "reset" : "closed") + " by the peer");
      throwSystemError(std::string("TLS ") + doing + " " + peer, err);
    default:
      break;
  }
  failed_ = true;
  const std::string reason = takeOpenSslError("protocol error");
  if (!established_)
    throwError(trncclRemoteError, "TLS handshake with " + peer + " failed (" + reason +
                                      "): do both ends hold the same encryption key (trncclSetEncryption, "
                                      "TRNCCL_ENCRYPTION_KEY_FILE), and is it a trnccl peer with encryption on?");
  throwError(trncclRemoteError, "a TLS record from " + peer + " failed authentication (" + reason +
                                    "): the connection was tampered with or corrupted on the way; its data is "
                                    "dropped, not used");
}

size_t TlsSession::write(std::span<const iovec> parts, const std::string& peer) {
  SigpipeGuard guard;
  size_t taken = 0;
  size_t part = 0;
  size_t offset = 0;  // into parts[part]
  auto skipEmpty = [&] {
    while (part < parts.size() && offset == parts[part].iov_len) {
      ++part;
      offset = 0;
    }
  };
  skipEmpty();
  while (part < parts.size() && taken < kWriteBudgetBytes) {
    // The next record: straight from the caller's part when it fills one or
    // is the last, else small parts gathered (a frame header and its payload).
    const auto* base = static_cast<const std::byte*>(parts[part].iov_base) + offset;
    size_t left = parts[part].iov_len - offset;
    const std::byte* record = base;
    size_t bytes = std::min(left, kRecordBytes);
    if (left < kRecordBytes && part + 1 < parts.size()) {
      gather_.clear();
      for (size_t p = part, o = offset; p < parts.size() && gather_.size() < kRecordBytes; ++p, o = 0) {
        const auto* from = static_cast<const std::byte*>(parts[p].iov_base) + o;
        const size_t n = std::min(parts[p].iov_len - o, kRecordBytes - gather_.size());
        gather_.insert(gather_.end(), from, from + n);
      }
      record = gather_.data();
      bytes = gather_.size();
    }
    size_t written = 0;
    ERR_clear_error();
    const int result = SSL_write_ex(ssl_, record, bytes, &written);
    if (result != 1) {
      // Would block; a record the kernel took part of is finished by the
      // caller's next write(), which offers the same bytes.
      onFailure(result, peer, "sending to");
      return taken;
    }
    succeeded();
    taken += written;
    for (size_t moved = written; moved > 0;) {
      const size_t n = std::min(moved, parts[part].iov_len - offset);
      offset += n;
      moved -= n;
      skipEmpty();
    }
  }
  return taken;
}

size_t TlsSession::read(void* data, size_t bytes, const std::string& peer) {
  if (bytes == 0) return 0;
  std::optional<SigpipeGuard> guard;  // the handshake writes
  if (!handshakeDone()) guard.emplace();
  size_t got = 0;
  ERR_clear_error();
  const int result = SSL_read_ex(ssl_, data, bytes, &got);
  if (result == 1) {
    succeeded();
    return got;
  }
  onFailure(result, peer, "receiving from");
  return 0;
}

}  // namespace trnccl::net
