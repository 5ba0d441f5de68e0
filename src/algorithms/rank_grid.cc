#include "algorithms/rank_grid.h"

#include <algorithm>
#include <numeric>

#include "base/error.h"

namespace trnccl::algo {

std::vector<int> RankGrid::row(int y) const {
  return std::vector<int>(ranks.begin() + y * width, ranks.begin() + (y + 1) * width);
}

std::vector<int> RankGrid::column(int x) const {
  std::vector<int> c;
  for (int y = 0; y < height; ++y) c.push_back(at(x, y));
  return c;
}

int RankGrid::xOf(int rank) const {
  return static_cast<int>(std::find(ranks.begin(), ranks.end(), rank) - ranks.begin()) % width;
}

int RankGrid::yOf(int rank) const {
  return static_cast<int>(std::find(ranks.begin(), ranks.end(), rank) - ranks.begin()) / width;
}

std::string whyBadGrid(const RankLayout& layout, int nranks) {
  if (!layout.hasGrid()) return {};
  const std::string shape = std::to_string(layout.gridWidth) + " x " + std::to_string(layout.gridHeight);
  if (layout.gridWidth < 1 || layout.gridHeight < 1 || layout.gridWidth * layout.gridHeight != nranks ||
      static_cast<int>(layout.grid.size()) != nranks)
    return "the layout's " + shape + " grid of " + std::to_string(layout.grid.size()) + " ranks does not hold " +
           std::to_string(nranks) + " ranks";
  std::vector<int> sorted = layout.grid;
  std::sort(sorted.begin(), sorted.end());
  for (int r = 0; r < nranks; ++r)
    if (sorted[r] != r) return "the layout's " + shape + " grid does not hold every rank exactly once";
  return {};
}

RankGrid gridFor(const CollectiveArgs& args) {
  const int n = args.nranks;
  if (args.layout && args.layout->hasGrid()) {
    const std::string why = whyBadGrid(*args.layout, n);
    if (!why.empty()) throwError(trncclInternalError, why);
    return RankGrid{args.layout->gridWidth, args.layout->gridHeight, args.layout->grid};
  }
  int x = 1;
  for (int d = 1; d * d <= n; ++d)
    if (n % d == 0) x = d;
  RankGrid g{x, n / x, std::vector<int>(n)};
  std::iota(g.ranks.begin(), g.ranks.end(), 0);
  return g;
}

}  // namespace trnccl::algo
