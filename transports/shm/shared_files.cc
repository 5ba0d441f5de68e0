#include "transports/shm/shared_files.h"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <string>
#include <utility>

#include "base/error.h"
#include "base/log.h"

namespace trnccl::transport::shm {

void RegisteredFiles::add(const SharedRegion& region) {
  const auto* base = static_cast<const std::byte*>(region.base);
  for (Entry& entry : entries_) {
    if (entry.base == base) {
      ++entry.registrations;
      return;
    }
  }
  struct stat status {};
  if (fstat(region.fd, &status) != 0) throwSystemError("fstat of a registered buffer's file", errno);
  entries_.push_back({base, region.bytes, region.fd, static_cast<uint64_t>(status.st_ino), 1});
}

void RegisteredFiles::remove(const void* base) {
  const auto entry = std::find_if(entries_.begin(), entries_.end(), [&](const Entry& e) { return e.base == base; });
  if (entry != entries_.end() && --entry->registrations == 0) entries_.erase(entry);
}

FileRef RegisteredFiles::find(const void* buffer, uint64_t bytes) {
  const auto* begin = static_cast<const std::byte*>(buffer);
  for (auto entry = entries_.begin(); entry != entries_.end(); ++entry) {
    if (begin < entry->base || bytes > entry->bytes || static_cast<size_t>(begin - entry->base) > entry->bytes - bytes)
      continue;
    // Freed before it was deregistered (NCCL's rules forbid it): a peer must
    // not read another file, or stale pages, under this descriptor.
    struct stat status {};
    if (fstat(entry->fd, &status) != 0 || static_cast<uint64_t>(status.st_ino) != entry->inode) {
      entries_.erase(entry);
      return {};
    }
    return {static_cast<uint32_t>(entry->fd) + 1, entry->inode, static_cast<uint64_t>(begin - entry->base)};
  }
  return {};
}

PeerFiles::PeerFiles(PeerFiles&& other) noexcept
    : mappings_(std::exchange(other.mappings_, {})), refused_(other.refused_) {}

PeerFiles& PeerFiles::operator=(PeerFiles&& other) noexcept {
  if (this != &other) {
    unmapAll();
    mappings_ = std::exchange(other.mappings_, {});
    refused_ = other.refused_;
  }
  return *this;
}

PeerFiles::~PeerFiles() { unmapAll(); }

uint64_t PeerFiles::mappedBytes() const {
  uint64_t total = 0;
  for (const Mapping& m : mappings_) total += m.bytes;
  return total;
}

void PeerFiles::unmapAll() {
  for (const Mapping& m : mappings_) munmap(const_cast<std::byte*>(m.base), m.bytes);
  mappings_.clear();
}

const std::byte* PeerFiles::find(pid_t pid, const FileRef& file, uint64_t bytes, bool mayUnmap) {
  if (refused_) return nullptr;
  auto fits = [&](const Mapping& m) { return bytes <= m.bytes && file.offset <= m.bytes - bytes; };
  for (auto m = mappings_.begin(); m != mappings_.end(); ++m) {
    if (m->fd != file.fd) continue;
    if (m->inode == file.inode) return fits(*m) ? m->base + file.offset : nullptr;
    // The peer closed that descriptor and opened another file on it.
    if (!mayUnmap) return nullptr;
    munmap(const_cast<std::byte*>(m->base), m->bytes);
    mappings_.erase(m);
    break;
  }
  if (mappings_.size() >= kMaxMappings) {
    if (!mayUnmap) return nullptr;
    munmap(const_cast<std::byte*>(mappings_.front().base), mappings_.front().bytes);
    mappings_.erase(mappings_.begin());
  }
  const std::string path = "/proc/" + std::to_string(pid) + "/fd/" + std::to_string(file.fd - 1);
  // Non-blocking: a corrupt Rts may name a pipe of the peer's, whose open
  // must not wait for a writer.
  const int fd = open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK);
  if (fd < 0) {
    // Not ours to open (another user's process, a hardened /proc): no later
    // message of this peer's will be either.
    refused_ = errno == EACCES || errno == EPERM;
    TRNCCL_INFO("shm: cannot open %s (%s): registered messages from this peer take two copies", path.c_str(),
                std::strerror(errno));
    return nullptr;
  }
  struct stat status {};
  const bool same = fstat(fd, &status) == 0 && S_ISREG(status.st_mode) &&
                    static_cast<uint64_t>(status.st_ino) == file.inode && status.st_size > 0;
  void* base = same ? mmap(nullptr, static_cast<size_t>(status.st_size), PROT_READ, MAP_SHARED, fd, 0) : MAP_FAILED;
  close(fd);
  if (base == MAP_FAILED) return nullptr;
  mappings_.push_back({file.fd, file.inode, static_cast<const std::byte*>(base), static_cast<size_t>(status.st_size)});
  return fits(mappings_.back()) ? mappings_.back().base + file.offset : nullptr;
}

}  // namespace trnccl::transport::shm
