// trnccl-ls --json: the text listing's content as one JSON document.
#pragma once

#include <nlohmann/json.hpp>

#include "listing.h"

namespace trnccl::ls {

nlohmann::json jsonListing(const Listing& listing);

}  // namespace trnccl::ls
