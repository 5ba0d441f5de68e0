// FNV-1a, 64-bit: a small, stable hash of short names and ids (a job's key,
// a host's boot id). Not for anything an adversary chooses.
#pragma once

#include <cstdint>
#include <string_view>

namespace trnccl {

constexpr uint64_t fnv1a(std::string_view bytes) {
  uint64_t hash = 14695981039346656037ull;
  for (char c : bytes) hash = (hash ^ static_cast<unsigned char>(c)) * 1099511628211ull;
  return hash;
}

}  // namespace trnccl
