// Whether this process encrypts the sockets it owns, and with which key
// (NCCL's ncclSetEncryption model): off by default; on with
// trncclSetEncryption(), or with TRNCCL_ENCRYPTION_KEY_FILE naming a file
// that holds the key in hex (only its owner may read it). The key itself is
// never in an environment variable or a log. Every rank of a job must hold
// the same key before the unique id is made; the unique id says whether its
// job is encrypted, so a rank without a key is refused with a clear error.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "base/tls.h"

namespace trnccl::encryption {

inline constexpr size_t kMinKeyBytes = 16;
inline constexpr size_t kMaxKeyBytes = 64;

// Sets the key every later communicator of this process uses; an empty key
// turns encryption off (and TRNCCL_ENCRYPTION_KEY_FILE is no longer read).
// Throws InvalidArgument naming 'keyBytes' for a length outside
// [kMinKeyBytes, kMaxKeyBytes].
void setKey(std::span<const uint8_t> key);

// The TLS context of the key in force (trncclSetEncryption's, else the key
// file's, read at the first call); null when encryption is off. Throws
// InvalidArgument naming TRNCCL_ENCRYPTION_KEY_FILE for a file that cannot
// be read, is not a key, or that others may read.
std::shared_ptr<const net::TlsContext> context();

// The key a key file holds: hex digits (whitespace ignored), kMinKeyBytes to
// kMaxKeyBytes of them. Throws InvalidArgument naming `what` and the path,
// never the contents.
std::vector<uint8_t> readKeyFile(const std::string& path, const std::string& what);

// HKDF-SHA256 of the user's key: the 32 bytes TLS uses.
net::TlsKey deriveTlsKey(std::span<const uint8_t> key);

}  // namespace trnccl::encryption
