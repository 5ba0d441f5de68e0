#include "base/encryption.h"

#include <openssl/crypto.h>
#include <openssl/evp.h>
#include <openssl/kdf.h>
#include <sys/stat.h>

#include <cctype>
#include <fstream>
#include <iterator>
#include <mutex>
#include <optional>

#include "base/error.h"
#include "base/log.h"
#include "base/settings.h"

namespace trnccl::encryption {

TRNCCL_SETTING(kKeyFile, TRNCCL_ENCRYPTION_KEY_FILE, settings::text("path of a file holding the key in hex", "off"),
               "encrypts and authenticates the bootstrap's and the tcp transport's sockets (TLS 1.3) with this key");

namespace {

std::mutex mutex;
// Set: trncclSetEncryption decided (a null context: off). Unset: the key
// file decides, read at the first context().
std::optional<std::shared_ptr<const net::TlsContext>> current;

std::shared_ptr<const net::TlsContext> makeContext(std::span<const uint8_t> key) {
  net::TlsKey derived = deriveTlsKey(key);
  auto context = std::make_shared<const net::TlsContext>(derived);
  OPENSSL_cleanse(derived.data(), derived.size());
  return context;
}

}  // namespace

net::TlsKey deriveTlsKey(std::span<const uint8_t> key) {
  static constexpr unsigned char kSalt[] = "trnccl encryption";
  static constexpr unsigned char kInfo[] = "trnccl tls13 external psk v1";
  net::TlsKey out{};
  size_t length = out.size();
  EVP_PKEY_CTX* kdf = EVP_PKEY_CTX_new_id(EVP_PKEY_HKDF, nullptr);
  const bool ok = kdf != nullptr && EVP_PKEY_derive_init(kdf) > 0 && EVP_PKEY_CTX_set_hkdf_md(kdf, EVP_sha256()) > 0 &&
                  EVP_PKEY_CTX_set1_hkdf_salt(kdf, kSalt, sizeof(kSalt) - 1) > 0 &&
                  EVP_PKEY_CTX_set1_hkdf_key(kdf, key.data(), static_cast<int>(key.size())) > 0 &&
                  EVP_PKEY_CTX_add1_hkdf_info(kdf, kInfo, sizeof(kInfo) - 1) > 0 &&
                  EVP_PKEY_derive(kdf, out.data(), &length) > 0 && length == out.size();
  EVP_PKEY_CTX_free(kdf);
  if (!ok) throwError(trncclSystemError, "OpenSSL could not derive the TLS key: " + net::takeOpenSslError("HKDF"));
  return out;
}

void setKey(std::span<const uint8_t> key) {
  if (!key.empty() && (key.size() < kMinKeyBytes || key.size() > kMaxKeyBytes))
    throwInvalidArgument("keyBytes", "is " + std::to_string(key.size()) + ": a key has " +
                                         std::to_string(kMinKeyBytes) + " to " + std::to_string(kMaxKeyBytes) +
                                         " bytes (0 with key NULL turns encryption off)");
  auto context = key.empty() ? nullptr : makeContext(key);
  std::lock_guard lock(mutex);
  current = std::move(context);
  TRNCCL_INFO("encryption %s by trncclSetEncryption", current->get() ? "on" : "off");
}

std::vector<uint8_t> readKeyFile(const std::string& path, const std::string& what) {
  auto refuse = [&](const std::string& problem) { throwInvalidArgument(what, "names " + path + ", which " + problem); };
  struct stat status {};
  if (::stat(path.c_str(), &status) != 0) refuse("cannot be read");
  if (!S_ISREG(status.st_mode)) refuse("is not a file");
  if ((status.st_mode & (S_IRWXG | S_IRWXO)) != 0)
    refuse("others may read or write (chmod 600 it: it holds the job's key)");
  std::ifstream file(path, std::ios::binary);
  if (!file) refuse("cannot be read");
  std::string text((std::istreambuf_iterator<char>(file)), std::istreambuf_iterator<char>());
  std::vector<uint8_t> key;
  int high = -1;
  bool ok = true;
  for (char c : text) {
    if (std::isspace(static_cast<unsigned char>(c))) continue;
    if (!std::isxdigit(static_cast<unsigned char>(c))) {
      ok = false;
      break;
    }
    const int digit = std::isdigit(static_cast<unsigned char>(c)) ? c - '0' : std::tolower(c) - 'a' + 10;
    if (high < 0) {
      high = digit;
    } else {
      key.push_back(static_cast<uint8_t>(high << 4 | digit));
      high = -1;
    }
  }
  OPENSSL_cleanse(text.data(), text.size());
  if (!ok || high >= 0 || key.size() < kMinKeyBytes || key.size() > kMaxKeyBytes) {
    OPENSSL_cleanse(key.data(), key.size());
    refuse("does not hold a key: " + std::to_string(2 * kMinKeyBytes) + " to " + std::to_string(2 * kMaxKeyBytes) +
           " hex digits (e.g. made by `openssl rand -hex 32`)");
  }
  return key;
}

std::shared_ptr<const net::TlsContext> context() {
  std::lock_guard lock(mutex);
  if (!current) {
    std::optional<std::string> path = settings::readText(kKeyFile);
    if (path && !path->empty()) {
      std::vector<uint8_t> key = readKeyFile(*path, kKeyFile.name);
      current = makeContext(key);
      OPENSSL_cleanse(key.data(), key.size());
      TRNCCL_INFO("encryption on, key from %s", kKeyFile.name);
    } else {
      current = nullptr;
    }
  }
  return *current;
}

}  // namespace trnccl::encryption
