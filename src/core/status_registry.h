// The live communicators of this process, as trnccl-top sees them: each
// registers a function that describes it, and a rank asked for its status
// (core/status_responder.h) answers with every one, so that a query to a
// job's first communicator also lists those split or shrunk from it.
#pragma once

#include <cstdint>
#include <functional>
#include <nlohmann/json.hpp>

namespace trnccl::core {

class StatusRegistry {
 public:
  // Registers `describe` (called on a responder's thread, never on a
  // collective's path) while the returned entry lives; its destruction waits
  // for a description in progress.
  class Entry {
   public:
    explicit Entry(std::function<nlohmann::json()> describe);
    ~Entry();
    Entry(const Entry&) = delete;
    Entry& operator=(const Entry&) = delete;

   private:
    uint64_t id_;
  };

  // {"pid", "host", "comms": [every registered description]}.
  static nlohmann::json describeProcess();
};

}  // namespace trnccl::core
