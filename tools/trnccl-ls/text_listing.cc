#include "text_listing.h"

#include <algorithm>
#include <cstdio>
#include <map>
#include <sstream>
#include <utility>

#include "topology/torus.h"

namespace trnccl::ls {

namespace {

// "96", "880.468", "0.5"
std::string number(double value) {
  char text[32];
  std::snprintf(text, sizeof text, "%g", value);
  return text;
}

std::string gib(double bytes) { return number(bytes / (1024.0 * 1024 * 1024)) + " GiB"; }

std::string joined(const std::vector<int>& values, const char* none = "-") {
  if (values.empty()) return none;
  std::string text;
  for (int v : values) text += (text.empty() ? "" : ", ") + std::to_string(v);
  return text;
}

std::string counted(long long count, const std::string& noun) {
  return std::to_string(count) + " " + noun + (count == 1 ? "" : "s");
}

// A table framed as neuron-ls frames its own.
std::string table(const std::vector<std::vector<std::string>>& rows) {
  std::vector<size_t> widths(rows[0].size(), 0);
  for (const auto& row : rows) {
    for (size_t c = 0; c < row.size(); ++c) widths[c] = std::max(widths[c], row[c].size());
  }
  std::string rule = "+";
  for (size_t w : widths) rule += std::string(w + 2, '-') + "+";
  std::string text = rule + "\n";
  for (size_t r = 0; r < rows.size(); ++r) {
    text += "|";
    for (size_t c = 0; c < rows[r].size(); ++c) {
      text += " " + rows[r][c] + std::string(widths[c] - rows[r][c].size(), ' ') + " |";
    }
    text += "\n" + std::string(r == 0 || r + 1 == rows.size() ? rule + "\n" : "");
  }
  return text;
}

std::string chipTable(const Listing& l) {
  const topo::Topology& t = l.topology;
  std::vector<std::vector<std::string>> rows{
      {"NODE", "CHIP", "NEURONCORES", "RANKS", "MEMORY", "CONNECTED CHIPS", "EFA NICS"}};
  for (const ChipView& v : l.chips) {
    const int firstCore = topo::globalCoreIndex(t, {v.node, v.chip, 0});
    const int lastCore = firstCore + t.coresPerChip - 1;
    std::string ranks;
    for (int r : v.coreRanks) ranks += (ranks.empty() ? "" : ", ") + (r < 0 ? std::string("-") : std::to_string(r));
    rows.push_back({std::to_string(v.node), std::to_string(v.chip),
                    std::to_string(firstCore) + (lastCore == firstCore ? "" : "-" + std::to_string(lastCore)), ranks,
                    gib(t.device.hbmBytes), joined(v.neighbours), joined(v.nics)});
  }
  return table(rows);
}

// "32 links: 32 x 96 GB/s, 1.5 us" (figures per direction, grouped)
std::string linkFigures(const topo::Topology& t) {
  std::map<std::pair<double, double>, int> groups;
  for (const topo::Link& l : t.links) ++groups[{l.bytesPerSec, l.latencySec}];
  std::string text;
  for (const auto& [figures, count] : groups) {
    text += (text.empty() ? "" : "; ") + std::to_string(count) + " x " + number(figures.first / 1e9) + " GB/s, " +
            number(figures.second * 1e6) + " us";
  }
  return counted(static_cast<long long>(t.links.size()), "link") + " (per direction: " + text + ")";
}

// One plane of the torus (its first two dimensions), chip numbers joined by
// "--" along x and "|" along y.
void drawPlane(std::ostringstream& out, const std::vector<int>& shape, int firstChip) {
  const int width = static_cast<int>(std::to_string(topo::torusSize(shape) - 1).size());
  const int columns = shape[0];
  const int rows = shape.size() > 1 ? shape[1] : 1;
  for (int y = 0; y < rows; ++y) {
    out << "    ";
    for (int x = 0; x < columns; ++x) {
      char cell[16];
      std::snprintf(cell, sizeof cell, "%*d", width, firstChip + x + columns * y);
      out << (x > 0 ? " -- " : "") << cell;
    }
    out << "\n";
    if (y + 1 == rows) break;
    out << "    ";
    for (int x = 0; x < columns; ++x) out << (x > 0 ? "    " : "") << std::string(width - 1, ' ') << "|";
    out << "\n";
  }
}

std::string torusDrawing(const topo::Topology& t) {
  const std::vector<int>& shape = t.torus;
  std::ostringstream out;
  std::string dims;
  for (int n : shape) dims += (dims.empty() ? "" : "x") + std::to_string(n);
  out << "NeuronLink: " << (shape.size() == 1 ? "ring of " + dims : std::to_string(shape.size()) + "D torus " + dims)
      << ", " << linkFigures(t) << "\n";
  const int planeSize = shape[0] * (shape.size() > 1 ? shape[1] : 1);
  const int planes = topo::torusSize(shape) / planeSize;
  for (int p = 0; p < planes; ++p) {
    if (planes > 1) {
      out << "  plane " << p << " (chips " << p * planeSize << "-" << (p + 1) * planeSize - 1 << "):\n";
    }
    drawPlane(out, shape, p * planeSize);
  }
  out << (shape.size() == 1 ? "  the last chip links back to the first\n"
                            : "  each row and column wraps around: its last chip links to its first\n");
  if (planes > 1) {
    out << "  each chip also links to the chip at its place in the planes before and after it"
           " (the last plane's to the first's)\n";
  }
  return out.str();
}

std::string neuronLinkSection(const topo::Topology& t) {
  if (!t.torus.empty()) return torusDrawing(t);
  if (t.links.empty()) return "NeuronLink: none\n";
  std::string pairs;
  for (const topo::Link& l : t.links) pairs += "\n    " + std::to_string(l.a) + " -- " + std::to_string(l.b);
  return "NeuronLink: " + linkFigures(t) + ":" + pairs + "\n";
}

std::string efaSection(const topo::Topology& t) {
  if (t.nics.empty()) return "EFA: none\n";
  double total = 0;
  std::vector<int> chips;
  for (const topo::Nic& n : t.nics) {
    total += n.bytesPerSec;
    chips.push_back(n.chip);
  }
  return "EFA: " + counted(static_cast<long long>(t.nics.size()), "NIC") + " per instance, " + number(total * 8 / 1e9) +
         " Gbps in all, " + number(t.efaLatencySec * 1e6) + " us; next to chip" + (chips.size() == 1 ? " " : "s ") +
         joined(chips) + "\n";
}

}  // namespace

std::string textListing(const Listing& l) {
  const topo::Topology& t = l.topology;
  std::ostringstream out;
  out << t.name << " (" << t.file << "): " << counted(t.nodes, "instance") << " x " << counted(t.chips, "chip") << " x "
      << counted(t.coresPerChip, "NeuronCore") << " = " << counted(t.totalCores(), "NeuronCore") << "\n";
  out << "device: " << t.device.generation << " (" << t.device.core << "), HBM " << gib(t.device.hbmBytes) << " at "
      << number(t.device.hbmBytesPerSec / 1e9) << " GB/s, DMA " << number(t.device.dmaBytesPerSec / 1e9) << " GB/s\n";
  out << "on-chip: " << number(t.onChipBytesPerSec / 1e9) << " GB/s, " << number(t.onChipLatencySec * 1e6)
      << " us between the NeuronCores of a chip\n";
  out << counted(static_cast<long long>(l.ranks.size()), "rank") << ", order " << l.order << "\n\n";
  out << chipTable(l) << "\n" << neuronLinkSection(t) << "\n" << efaSection(t);
  out << (l.host ? l.host->describe() : "host: unknown (" + l.hostError + ")") << "\n";
  return out.str();
}

}  // namespace trnccl::ls
