#include "core/status_query.h"

#include <string>

#include "base/encryption.h"
#include "base/error.h"
#include "base/socket.h"
#include "core/bootstrap.h"
#include "core/bootstrap_protocol.h"

namespace trnccl::core {

using namespace wire;

nlohmann::json queryJobStatus(const trncclUniqueId& id, milliseconds connectTimeout, milliseconds rankWait) {
  const RendezvousInfo info = decodeUniqueId(id);
  const std::string where = "the job's rendezvous root at " + info.root.toString();
  // Speaks what the job speaks, whatever this process's own setting.
  std::shared_ptr<const net::TlsContext> tls = info.encrypted ? encryption::context() : nullptr;
  if (info.encrypted && !tls)
    throwError(trncclInvalidUsage,
               "the job is encrypted: set TRNCCL_ENCRYPTION_KEY_FILE to its key file, as its ranks have it");
  net::Socket root;
  try {
    root = net::Socket::connect(info.root, net::Deadline(connectTimeout), "the rendezvous root",
                                net::Socket::WhenRefused::Fail);
  } catch (const Error& e) {
    throwError(e.code(), "cannot reach " + where + ": " + e.what() +
                             " (the job has ended, or the id is not a running job's; a root on a fixed "
                             "TRNCCL_COMM_ID port answers no queries)");
  }
  root.startTls(std::move(tls), net::TlsRole::Client);
  // The root answers within rankWait; the rest is for the transfers.
  const net::Deadline deadline(connectTimeout + rankWait + std::chrono::seconds(2));
  struct {
    Hello hello;
    Registration registration;
  } query{makeHello(Purpose::Status, info.secret, -1, 0), {{}, static_cast<uint64_t>(rankWait.count())}};
  return withContext(where + ": ", [&] {
    ReplyHeader reply{};
    try {
      root.sendAll(&query, sizeof(query), deadline);
      root.recvAll(&reply, sizeof(reply), deadline);
    } catch (const Error& e) {
      if (e.code() != trncclRemoteError || root.tlsFailed()) throw;
      throwError(trncclRemoteError, std::string(e.what()) +
                                        " without answering: the job may still be at its rendezvous, or its root "
                                        "serves no queries");
    }
    const bool known = reply.code == trncclSuccess || reply.code == trncclInvalidUsage;
    if (!known || (reply.code != trncclSuccess && reply.bytes > kMaxErrorMessage))
      throwError(trncclRemoteError, "a malformed reply");
    std::string body(reply.bytes, '\0');
    root.recvAll(body.data(), body.size(), deadline);
    if (reply.code != trncclSuccess) throwError(static_cast<trncclResult_t>(reply.code), body);
    nlohmann::json status = nlohmann::json::parse(body, nullptr, false);
    if (status.is_discarded()) throwError(trncclRemoteError, "a status answer that is not JSON");
    return status;
  });
}

}  // namespace trnccl::core
