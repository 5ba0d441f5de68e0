#include "transports/ofi/rank_card.h"

#include <unistd.h>

#include <cstring>
#include <fstream>

#include "base/error.h"
#include "base/fnv1a.h"
#include "base/peer_process.h"

namespace trnccl::transport::ofi {
namespace {

constexpr uint32_t kCardMagic = 0x4f46'4943;  // "OFIC"

[[noreturn]] void disagree(const char* variable, const std::string& what, size_t rank, const std::string& theirs,
                           const std::string& ours) {
  throwError(trncclInvalidUsage, std::string("ranks disagree on ") + what + " (" + variable + "): rank " +
                                     std::to_string(rank) + " has " + theirs + ", rank 0 has " + ours);
}

}  // namespace

Address RankCard::address(int rail) const {
  const auto r = static_cast<size_t>(rail);
  return Address(addresses[r], addresses[r] + addressBytes[r]);
}

RankCard makeCard(const std::string& provider, const std::vector<Address>& addresses, uint64_t chunkBytes,
                  uint32_t controlReceives, bool checksums) {
  RankCard card{};
  card.magic = kCardMagic;
  card.rails = static_cast<uint32_t>(addresses.size());
  std::strncpy(card.provider, provider.c_str(), sizeof card.provider - 1);
  card.chunkBytes = chunkBytes;
  card.controlReceives = controlReceives;
  card.checksums = checksums ? 1 : 0;
  card.hostId = thisHostId();
  card.pid = getpid();
  for (size_t r = 0; r < addresses.size(); ++r) {
    const Address& address = addresses[r];
    if (address.size() > kMaxAddressBytes)
      throwError(trncclSystemError, "provider " + provider + " gave rail " + std::to_string(r) + " an address of " +
                                        std::to_string(address.size()) + " bytes, more than the " +
                                        std::to_string(kMaxAddressBytes) + " the transport exchanges");
    card.addressBytes[r] = static_cast<uint32_t>(address.size());
    std::memcpy(card.addresses[r], address.data(), address.size());
  }
  return card;
}

void checkAgreement(const std::vector<RankCard>& cards) {
  const RankCard& first = cards.front();
  for (size_t r = 0; r < cards.size(); ++r) {
    const RankCard& card = cards[r];
    if (card.magic != kCardMagic)
      throwError(trncclInternalError, "rank " + std::to_string(r) + " sent no libfabric transport card at setup");
    if (std::strncmp(card.provider, first.provider, sizeof card.provider) != 0)
      disagree("TRNCCL_OFI_PROVIDER", "the libfabric provider", r, card.provider, first.provider);
    if (card.rails != first.rails)
      disagree("TRNCCL_OFI_RAILS", "the number of rails", r, std::to_string(card.rails), std::to_string(first.rails));
    if (card.chunkBytes != first.chunkBytes)
      disagree("TRNCCL_OFI_CHUNK_BYTES", "the chunk size", r, std::to_string(card.chunkBytes),
               std::to_string(first.chunkBytes));
    if (card.checksums != first.checksums)
      disagree("TRNCCL_OFI_CHECKSUM", "checksums", r, card.checksums ? "them on" : "them off",
               first.checksums ? "them on" : "them off");
  }
}

uint64_t thisHostId() {
  std::ifstream file("/proc/sys/kernel/random/boot_id");
  std::string bootId;
  std::getline(file, bootId);
  char host[256] = {};
  gethostname(host, sizeof host - 1);
  if (bootId.empty()) bootId = host;
  return fnv1a(bootId) ^ pidNamespaceId();
}

}  // namespace trnccl::transport::ofi
