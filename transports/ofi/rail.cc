#include "transports/ofi/rail.h"

#include <rdma/fi_cm.h>
#include <rdma/fi_endpoint.h>
#include <rdma/fi_errno.h>
#include <rdma/fi_tagged.h>

#include <algorithm>
#include <iterator>

#include "transports/ofi/fi_error.h"

namespace trnccl::transport::ofi {
namespace {

void check(int rc, const std::string& what) {
  if (rc != 0) throwFiError(what, rc);
}

}  // namespace

Rail::Rail(const fi_info& info, int index)
    : index_(index),
      fabricName_(info.fabric_attr->name),
      domainName_(info.domain_attr->name),
      mrMode_(info.domain_attr->mr_mode),
      txDepth_(info.tx_attr->size),
      rxDepth_(info.rx_attr->size),
      maxMessageBytes_(info.ep_attr->max_msg_size) {
  const std::string where =
      "rail " + std::to_string(index) + " (" + info.fabric_attr->prov_name + ", domain " + domainName_ + "): ";
  fid_fabric* fabric = nullptr;
  check(fi_fabric(info.fabric_attr, &fabric, nullptr), where + "fi_fabric");
  fabric_.reset(fabric);
  fid_domain* domain = nullptr;
  check(fi_domain(fabric, const_cast<fi_info*>(&info), &domain, nullptr), where + "fi_domain");
  domain_.reset(domain);

  // A file descriptor to sleep on where the provider has one; polling otherwise.
  fi_cq_attr cqAttr{};
  cqAttr.format = FI_CQ_FORMAT_TAGGED;
  cqAttr.wait_obj = FI_WAIT_FD;
  fid_cq* cq = nullptr;
  if (fi_cq_open(domain, &cqAttr, &cq, nullptr) != 0) {
    cqAttr.wait_obj = FI_WAIT_NONE;
    check(fi_cq_open(domain, &cqAttr, &cq, nullptr), where + "fi_cq_open");
  }
  cq_.reset(cq);
  if (cqAttr.wait_obj == FI_WAIT_FD && fi_control(&cq->fid, FI_GETWAIT, &waitFd_) != 0) waitFd_ = -1;

  fi_av_attr avAttr{};
  avAttr.type = FI_AV_TABLE;
  fid_av* av = nullptr;
  check(fi_av_open(domain, &avAttr, &av, nullptr), where + "fi_av_open");
  av_.reset(av);

  if ((mrMode_ & FI_MR_LOCAL) != 0) {
    registrations_.emplace(
        kCachedRegistrations, [this](uintptr_t begin, size_t bytes) { return registerMemory(begin, bytes); },
        [](const RegistrationCache::Region& region) { fi_close(&static_cast<fid_mr*>(region.handle)->fid); });
  }

  fid_ep* ep = nullptr;
  check(fi_endpoint(domain, const_cast<fi_info*>(&info), &ep, nullptr), where + "fi_endpoint");
  ep_.reset(ep);
  check(fi_ep_bind(ep, &cq->fid, FI_TRANSMIT | FI_RECV), where + "binding the completion queue");
  check(fi_ep_bind(ep, &av->fid, 0), where + "binding the address vector");
  check(fi_enable(ep), where + "fi_enable");

  size_t length = 0;
  const int rc = fi_getname(&ep->fid, nullptr, &length);
  if (rc != -FI_ETOOSMALL && rc != 0) throwFiError(where + "fi_getname", rc);
  address_.resize(length);
  check(fi_getname(&ep->fid, address_.data(), &length), where + "fi_getname");
  address_.resize(length);
}

std::vector<fi_addr_t> Rail::insert(const std::vector<Address>& addresses) {
  std::vector<fi_addr_t> result(addresses.size(), FI_ADDR_NOTAVAIL);
  for (size_t i = 0; i < addresses.size(); ++i) {
    const int inserted = fi_av_insert(av_.get(), addresses[i].data(), 1, &result[i], 0, nullptr);
    if (inserted != 1)
      throwFiError("rail " + std::to_string(index_) + ": fi_av_insert of " + describe(addresses[i]),
                   inserted < 0 ? inserted : -FI_EADDRNOTAVAIL);
  }
  return result;
}

std::string Rail::describe(const Address& address) const {
  char text[256] = {};
  size_t length = sizeof text;
  fi_av_straddr(av_.get(), address.data(), text, &length);
  return text;
}

ssize_t Rail::send(const void* buffer, size_t bytes, void* desc, fi_addr_t to, uint64_t tag, void* context) {
  return fi_tsend(ep_.get(), buffer, bytes, desc, to, tag, context);
}

ssize_t Rail::receive(void* buffer, size_t bytes, void* desc, fi_addr_t from, uint64_t tag, void* context) {
  return fi_trecv(ep_.get(), buffer, bytes, desc, from, tag, 0, context);
}

void Rail::cancel(void* context) { fi_cancel(&ep_->fid, context); }

void Rail::read(std::vector<RawCompletion>& out, size_t max) {
  fi_cq_tagged_entry entries[16];
  while (max > 0) {
    const ssize_t n = fi_cq_read(cq_.get(), entries, std::min(max, std::size(entries)));
    if (n == -FI_EAGAIN || n == 0) return;
    if (n == -FI_EAVAIL) {
      fi_cq_err_entry error{};
      if (fi_cq_readerr(cq_.get(), &error, 0) != 1) return;
      char text[256] = {};
      const char* said = fi_cq_strerror(cq_.get(), error.prov_errno, error.err_data, text, sizeof text);
      out.push_back({error.op_context, error.len, error.err, said != nullptr ? said : ""});
      --max;
      continue;
    }
    if (n < 0) throwFiError("rail " + std::to_string(index_) + ": fi_cq_read", static_cast<int>(n));
    for (ssize_t i = 0; i < n; ++i) out.push_back({entries[i].op_context, entries[i].len, 0, {}});
    max -= static_cast<size_t>(n);
  }
}

bool Rail::readyToSleep() {
  fid* fids[] = {&cq_->fid};
  return fi_trywait(fabric_.get(), fids, 1) == FI_SUCCESS;
}

RegistrationCache::Lease Rail::lease(const void* buffer, size_t bytes) {
  if (!registrations_) return {};
  return registrations_->acquire(buffer, bytes);
}

void Rail::release(RegistrationCache::Lease& lease) {
  if (registrations_) registrations_->release(lease);
}

RegistrationCache::Region Rail::registerMemory(uintptr_t begin, size_t bytes) {
  // Without FI_MR_PROV_KEY the application picks keys, unique per domain.
  const uint64_t key = (mrMode_ & FI_MR_PROV_KEY) != 0 ? 0 : nextKey_++;
  fid_mr* mr = nullptr;
  const std::string what = "rail " + std::to_string(index_) + ": registering " + std::to_string(bytes) + " bytes at " +
                           std::to_string(begin);
  check(
      fi_mr_reg(domain_.get(), reinterpret_cast<const void*>(begin), bytes, FI_SEND | FI_RECV, 0, key, 0, &mr, nullptr),
      what);
  if ((mrMode_ & FI_MR_ENDPOINT) != 0) {
    int rc = fi_mr_bind(mr, &ep_->fid, 0);
    if (rc == 0) rc = fi_mr_enable(mr);
    if (rc != 0) {
      fi_close(&mr->fid);
      throwFiError(what + " (binding it to the endpoint)", rc);
    }
  }
  return {mr, fi_mr_desc(mr)};
}

}  // namespace trnccl::transport::ofi
