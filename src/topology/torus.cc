#include "topology/torus.h"

#include <algorithm>

namespace trnccl::topo {

int torusSize(const std::vector<int>& shape) {
  int size = 1;
  for (int n : shape) size *= n;
  return size;
}

std::vector<int> torusCoords(const std::vector<int>& shape, int chip) {
  std::vector<int> coords(shape.size());
  for (size_t d = 0; d < shape.size(); ++d) {
    coords[d] = chip % shape[d];
    chip /= shape[d];
  }
  return coords;
}

int torusChip(const std::vector<int>& shape, const std::vector<int>& coords) {
  int chip = 0;
  for (size_t d = shape.size(); d-- > 0;) chip = chip * shape[d] + coords[d];
  return chip;
}

std::vector<TorusLink> torusLinks(const std::vector<int>& shape) {
  std::vector<TorusLink> links;
  for (int chip = 0; chip < torusSize(shape); ++chip) {
    auto coords = torusCoords(shape, chip);
    for (size_t d = 0; d < shape.size(); ++d) {
      const int n = shape[d];
      if (n == 1 || (n == 2 && coords[d] == 1)) continue;  // no link, or the pair's one link is listed
      auto next = coords;
      next[d] = (coords[d] + 1) % n;
      links.push_back({chip, torusChip(shape, next), static_cast<int>(d)});
    }
  }
  return links;
}

std::vector<int> torusRingOrder(const std::vector<int>& shape) {
  // Built one dimension at a time: each step of the new dimension walks the
  // order so far, alternately forwards and backwards.
  std::vector<std::vector<int>> order{{}};
  for (int n : shape) {
    std::vector<std::vector<int>> next;
    for (int v = 0; v < n; ++v) {
      auto walk = order;
      if (v % 2 == 1) std::reverse(walk.begin(), walk.end());
      for (auto& coords : walk) {
        coords.push_back(v);
        next.push_back(std::move(coords));
      }
    }
    order = std::move(next);
  }
  std::vector<int> chips;
  for (const auto& coords : order) chips.push_back(torusChip(shape, coords));
  return chips;
}

std::vector<int> torusPath(const std::vector<int>& shape, int from, int to) {
  std::vector<int> path;
  auto at = torusCoords(shape, from);
  const auto target = torusCoords(shape, to);
  for (size_t d = 0; d < shape.size(); ++d) {
    const int n = shape[d];
    const int forward = ((target[d] - at[d]) % n + n) % n;
    const int step = forward <= n - forward ? 1 : -1;
    while (at[d] != target[d]) {
      at[d] = (at[d] + step + n) % n;
      path.push_back(torusChip(shape, at));
    }
  }
  return path;
}

}  // namespace trnccl::topo
