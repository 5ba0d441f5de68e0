#include "raw_endpoint.h"

#include <rdma/fi_cm.h>
#include <rdma/fi_domain.h>
#include <rdma/fi_endpoint.h>
#include <rdma/fi_errno.h>
#include <rdma/fi_tagged.h>

#include <cstring>
#include <stdexcept>

namespace trnccl::ofi_bench {
namespace {

void check(long rc, const std::string& what) {
  if (rc != 0) throw std::runtime_error(what + ": " + fi_strerror(static_cast<int>(-rc)));
}

}  // namespace

RawEndpoint::RawEndpoint(const std::string& provider, void* buffer, size_t bytes) {
  fi_info* hints = fi_allocinfo();
  hints->caps = FI_TAGGED | FI_DIRECTED_RECV;
  hints->ep_attr->type = FI_EP_RDM;
  hints->mode = FI_CONTEXT | FI_CONTEXT2;
  hints->domain_attr->mr_mode = FI_MR_LOCAL | FI_MR_VIRT_ADDR | FI_MR_ALLOCATED | FI_MR_PROV_KEY;
  hints->fabric_attr->prov_name = strdup(provider.c_str());
  const int rc = fi_getinfo(FI_VERSION(FI_MAJOR_VERSION, FI_MINOR_VERSION), nullptr, nullptr, 0, hints, &info_);
  fi_freeinfo(hints);
  if (rc != 0 || info_ == nullptr)
    throw std::runtime_error("fi_getinfo: provider '" + provider + "' offers no tagged RDM endpoint here (" +
                             fi_strerror(-rc) + ")");
  fabricName_ = info_->fabric_attr->name;
  check(fi_fabric(info_->fabric_attr, &fabric_, nullptr), "fi_fabric");
  check(fi_domain(fabric_, info_, &domain_, nullptr), "fi_domain");
  fi_cq_attr cqAttr{};
  cqAttr.format = FI_CQ_FORMAT_CONTEXT;
  cqAttr.wait_obj = FI_WAIT_NONE;  // busy polling: the fastest a provider goes
  check(fi_cq_open(domain_, &cqAttr, &cq_, nullptr), "fi_cq_open");
  fi_av_attr avAttr{};
  avAttr.type = FI_AV_TABLE;
  check(fi_av_open(domain_, &avAttr, &av_, nullptr), "fi_av_open");
  if ((info_->domain_attr->mr_mode & FI_MR_LOCAL) != 0)
    check(fi_mr_reg(domain_, buffer, bytes, FI_SEND | FI_RECV, 0, 0, 0, &mr_, nullptr), "fi_mr_reg");
  check(fi_endpoint(domain_, info_, &ep_, nullptr), "fi_endpoint");
  check(fi_ep_bind(ep_, &cq_->fid, FI_TRANSMIT | FI_RECV), "fi_ep_bind cq");
  check(fi_ep_bind(ep_, &av_->fid, 0), "fi_ep_bind av");
  check(fi_enable(ep_), "fi_enable");
}

RawEndpoint::~RawEndpoint() {
  for (fid* object : {ep_ ? &ep_->fid : nullptr, mr_ ? &mr_->fid : nullptr, av_ ? &av_->fid : nullptr,
                      cq_ ? &cq_->fid : nullptr, domain_ ? &domain_->fid : nullptr, fabric_ ? &fabric_->fid : nullptr})
    if (object) fi_close(object);
  fi_freeinfo(info_);
}

std::vector<uint8_t> RawEndpoint::name() const {
  std::vector<uint8_t> name(256);
  size_t length = name.size();
  check(fi_getname(&ep_->fid, name.data(), &length), "fi_getname");
  name.resize(length);
  return name;
}

void RawEndpoint::addPeer(const std::vector<uint8_t>& name) {
  if (fi_av_insert(av_, name.data(), 1, &peer_, 0, nullptr) != 1) throw std::runtime_error("fi_av_insert failed");
}

bool RawEndpoint::send(const void* data, size_t bytes, uint64_t tag, void* context) {
  const ssize_t rc = fi_tsend(ep_, data, bytes, mr_ ? fi_mr_desc(mr_) : nullptr, peer_, tag, context);
  if (rc == -FI_EAGAIN) return false;
  check(rc, "fi_tsend");
  return true;
}

bool RawEndpoint::receive(void* data, size_t bytes, uint64_t tag, void* context) {
  const ssize_t rc = fi_trecv(ep_, data, bytes, mr_ ? fi_mr_desc(mr_) : nullptr, peer_, tag, 0, context);
  if (rc == -FI_EAGAIN) return false;
  check(rc, "fi_trecv");
  return true;
}

size_t RawEndpoint::completions(void** contexts, size_t max) {
  fi_cq_entry entries[64];
  const ssize_t n = fi_cq_read(cq_, entries, std::min(max, std::size(entries)));
  if (n == -FI_EAGAIN) return 0;
  if (n == -FI_EAVAIL) {
    fi_cq_err_entry error{};
    fi_cq_readerr(cq_, &error, 0);
    throw std::runtime_error(std::string("completion error: ") + fi_strerror(error.err) + " (" +
                             fi_cq_strerror(cq_, error.prov_errno, error.err_data, nullptr, 0) + ")");
  }
  if (n < 0) check(n, "fi_cq_read");
  for (ssize_t i = 0; i < n; ++i) contexts[i] = entries[i].op_context;
  return static_cast<size_t>(n);
}

}  // namespace trnccl::ofi_bench
