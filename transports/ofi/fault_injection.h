// A test-only fault layer between the completion queues and the transport:
// it holds completions back for a random time and hands them over in another
// order than the provider produced them, as EFA's many-path SRD may. Tests use
// it to prove that nothing depends on the order of completions.
//
// TRNCCL_OFI_FAULTS is a ':'-separated list of
//   delay[=MICROSECONDS]  hold each completion for a random time up to this
//                         (default 2000 us)
//   reorder               hand over any held completion that is due, picked
//                         at random, instead of the oldest
//   corrupt=N             flip one byte of every Nth message received (the
//                         corruption TRNCCL_OFI_CHECKSUM is there to catch)
//   seed=N                the random sequence (default 1)
// e.g. TRNCCL_OFI_FAULTS=delay:reorder. Unset or empty: no fault layer.
#pragma once

#include <algorithm>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <deque>
#include <optional>
#include <random>
#include <string>

namespace trnccl::transport::ofi {

struct FaultConfig {
  bool enabled = false;
  std::chrono::microseconds maxDelay{0};
  bool reorder = false;
  uint64_t corruptEvery = 0;  // 0: none
  uint64_t seed = 1;
};

// Throws Error(InvalidArgument) naming TRNCCL_OFI_FAULTS for an unknown item.
FaultConfig parseFaults(const std::string& spec);

struct FaultStats {
  uint64_t held = 0;
  // Completions handed over while one that arrived before them was still held.
  uint64_t overtaking = 0;
  uint64_t corrupted = 0;  // messages received with a byte flipped
};

// Holds items of type T (completions) and releases them as configured.
template <class T>
class FaultInjector {
 public:
  explicit FaultInjector(const FaultConfig& config) : config_(config), random_(config.seed) {}

  void hold(T item, uint64_t nowNs) {
    uint64_t delay = 0;
    if (config_.maxDelay.count() > 0) {
      const auto maxNs = static_cast<uint64_t>(config_.maxDelay.count()) * 1000;
      delay = std::uniform_int_distribution<uint64_t>(0, maxNs)(random_);
    }
    held_.push_back({std::move(item), nowNs + delay});
    ++stats_.held;
  }

  // The next item due at `nowNs`, if any.
  std::optional<T> release(uint64_t nowNs) {
    size_t pick = held_.size();
    if (config_.reorder) {
      size_t due = 0;
      for (const Held& h : held_) due += h.dueNs <= nowNs;
      if (due == 0) return std::nullopt;
      size_t nth = std::uniform_int_distribution<size_t>(0, due - 1)(random_);
      for (size_t i = 0; i < held_.size(); ++i) {
        if (held_[i].dueNs <= nowNs && nth-- == 0) {
          pick = i;
          break;
        }
      }
    } else if (!held_.empty() && held_.front().dueNs <= nowNs) {
      pick = 0;  // in arrival order: a delayed head holds back those behind it
    }
    if (pick == held_.size()) return std::nullopt;
    if (pick != 0) ++stats_.overtaking;  // held_ stays in arrival order
    T item = std::move(held_[pick].item);
    held_.erase(held_.begin() + static_cast<std::ptrdiff_t>(pick));
    return item;
  }

  // Flips one byte of every corruptEvery'th message received.
  void corrupt(std::byte* data, size_t length) {
    if (config_.corruptEvery == 0 || length == 0 || ++received_ % config_.corruptEvery != 0) return;
    data[std::uniform_int_distribution<size_t>(0, length - 1)(random_)] ^= std::byte{0x5a};
    ++stats_.corrupted;
  }

  // When the next item falls due: UINT64_MAX if none is held.
  uint64_t nextDueNs() const {
    if (held_.empty()) return UINT64_MAX;
    if (!config_.reorder) return held_.front().dueNs;
    uint64_t next = UINT64_MAX;
    for (const Held& h : held_) next = std::min(next, h.dueNs);
    return next;
  }
  bool empty() const { return held_.empty(); }
  const FaultStats& stats() const { return stats_; }

 private:
  struct Held {
    T item;
    uint64_t dueNs;
  };
  FaultConfig config_;
  std::mt19937_64 random_;
  std::deque<Held> held_;
  FaultStats stats_;
  uint64_t received_ = 0;
};

}  // namespace trnccl::transport::ofi
