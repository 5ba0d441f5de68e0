// The rendezvous root's status service and trnccl-top's query, with bare
// bootstraps as ranks: what the root says of ranks that do not answer, or
// left, or answer; a wrong secret; nothing listening.
#include <unistd.h>

#include <catch2/catch.hpp>
#include <chrono>
#include <memory>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "base/error.h"
#include "base/secret.h"
#include "core/bootstrap.h"
#include "core/status_query.h"
#include "core/status_responder.h"

using namespace trnccl;
using namespace trnccl::core;
using namespace std::chrono_literals;

namespace {

bool contains(const std::string& text, const std::string& needle) { return text.find(needle) != std::string::npos; }

std::vector<std::unique_ptr<Bootstrap>> connectAll(const trncclUniqueId& id, int nranks) {
  std::vector<std::unique_ptr<Bootstrap>> ranks(nranks);
  std::vector<std::thread> threads;
  for (int r = 0; r < nranks; ++r) threads.emplace_back([&, r] { ranks[r] = Bootstrap::connect(id, r, nranks, 20s); });
  for (std::thread& t : threads) t.join();
  return ranks;
}

// The error a query throws, or none.
std::optional<Error> queryError(const trncclUniqueId& id) {
  try {
    queryJobStatus(id, 3s, 100ms);
  } catch (const Error& e) {
    return e;
  }
  return std::nullopt;
}

}  // namespace

TEST_CASE("status query: the root reports each rank as answering, silent, or gone", "[status]") {
  const trncclUniqueId id = createUniqueId(20s);
  std::vector<std::unique_ptr<Bootstrap>> ranks = connectAll(id, 3);
  // Rank 0 answers (no communicator: an empty list); rank 1 holds its link
  // but never answers, like a stopped process; rank 2 leaves.
  StatusResponder responder(ranks[0]->takeRootLink());
  ranks[2].reset();

  const nlohmann::json status = queryJobStatus(id, 5s, 300ms);
  INFO(status.dump(1));
  REQUIRE(status["nranks"] == 3);
  REQUIRE(status["ranks"].size() == 3);
  CHECK(status["ranks"][0]["answered"] == true);
  CHECK(status["ranks"][0]["status"]["pid"] == static_cast<int64_t>(getpid()));
  CHECK(status["ranks"][0]["status"]["comms"].empty());
  CHECK(status["ranks"][1]["answered"] == false);
  CHECK(status["ranks"][1]["reason"] == "no answer within 300 ms");
  CHECK(status["ranks"][2]["answered"] == false);
  CHECK(contains(status["ranks"][2]["reason"].get<std::string>(), "left"));
  CHECK(status["ranks"][1]["address"] == "127.0.0.1");
}

TEST_CASE("status query: a wrong secret is refused, saying so", "[status]") {
  const trncclUniqueId id = createUniqueId(20s);
  std::vector<std::unique_ptr<Bootstrap>> ranks = connectAll(id, 2);
  RendezvousInfo forged = decodeUniqueId(id);
  forged.secret[5] ^= 0x10;
  const std::optional<Error> error = queryError(encodeUniqueId(forged));
  REQUIRE(error);
  CHECK(error->code() == trncclInvalidUsage);
  CHECK(contains(error->what(), "wrong secret"));
  // The job's own id is still answered.
  CHECK(queryJobStatus(id, 3s, 100ms)["nranks"] == 2);
}

TEST_CASE("status query: the root ends once every rank has left; then nothing listens", "[status]") {
  const trncclUniqueId id = createUniqueId(20s);
  connectAll(id, 2).clear();
  // The root notices the closed links on its own thread: ask until it is gone.
  std::optional<Error> error;
  for (int attempt = 0; attempt < 100 && !error; ++attempt) {
    error = queryError(id);
    if (!error) std::this_thread::sleep_for(50ms);
  }
  REQUIRE(error);
  CHECK(contains(error->what(), "cannot reach the job's rendezvous root at " + decodeUniqueId(id).root.toString()));
}

namespace {
// An address nothing listens at: a port that was just free.
net::SocketAddress closedAddress() {
  net::Socket closed = net::Socket::listen(net::SocketAddress::parse("127.0.0.1:0"));
  return closed.localAddress();
}
}  // namespace

TEST_CASE("status query: an encrypted job's id without a key here says which setting to give", "[status]") {
  const std::optional<Error> error = queryError(encodeUniqueId({closedAddress(), randomSecret(), true}));
  REQUIRE(error);
  CHECK(error->code() == trncclInvalidUsage);
  CHECK(contains(error->what(), "the job is encrypted: set TRNCCL_ENCRYPTION_KEY_FILE"));
}

TEST_CASE("status query: nothing listening at the id's root fails at once, naming it", "[status]") {
  const net::SocketAddress address = closedAddress();
  const auto start = std::chrono::steady_clock::now();
  const std::optional<Error> error = queryError(encodeUniqueId({address, randomSecret(), false}));
  REQUIRE(error);
  CHECK(contains(error->what(), "cannot reach the job's rendezvous root at " + address.toString()));
  // Refused at once, not after the 3 s connect timeout.
  CHECK(std::chrono::steady_clock::now() - start < 3s);
}
