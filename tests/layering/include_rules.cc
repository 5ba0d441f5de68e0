#include "include_rules.h"

#include <algorithm>
#include <fstream>
#include <regex>
#include <set>
#include <sstream>
#include <stdexcept>

namespace trnccl::test {
namespace fs = std::filesystem;
namespace {

bool startsWith(const std::string& text, const std::string& prefix) {
  return text.compare(0, prefix.size(), prefix) == 0;
}

// The layer whose folder holds `file` most closely (device/kernels before device).
const Layer* layerOf(const std::vector<Layer>& layers, const std::string& file) {
  const Layer* best = nullptr;
  for (const Layer& layer : layers)
    if (startsWith(file, layer.folder + "/") && (best == nullptr || layer.folder.size() > best->folder.size()))
      best = &layer;
  return best;
}

bool mayInclude(const Layer& layer, const std::string& header) {
  return std::any_of(layer.sees.begin(), layer.sees.end(), [&](const std::string& allowed) {
    return allowed.back() == '/' ? startsWith(header, allowed) : header == allowed;
  });
}

// The first folder of every include path some layer offers ("base", "trnccl",
// "transports"): an include that starts elsewhere (<vector>, <rdma/fabric.h>)
// is not the project's.
std::set<std::string> projectRoots(const std::vector<Layer>& layers) {
  std::set<std::string> roots;
  for (const Layer& layer : layers)
    for (const std::string& path : layer.sees) roots.insert(path.substr(0, path.find('/')));
  return roots;
}

// "../x.h", "algorithms/../core/x.h": a path through ".." names a file by
// where it lies, not by the include root its layer may use.
bool throughParent(const std::string& header) { return ("/" + header + "/").find("/../") != std::string::npos; }

std::string joined(const std::vector<std::string>& paths) {
  std::string text;
  for (const std::string& path : paths) text += (text.empty() ? "" : " ") + path;
  return text;
}

void checkFile(const std::vector<Layer>& layers, const std::set<std::string>& roots, const fs::path& root,
               const std::string& file, std::vector<std::string>& violations) {
  const Layer* layer = layerOf(layers, file);
  if (layer == nullptr) {
    violations.push_back(file + ":1: belongs to no layer (cmake/Layers.cmake)");
    return;
  }
  static const std::regex include(R"(^\s*#\s*include\s*["<]([^">]+)[">])");
  std::ifstream in(root / file);
  std::string text;
  for (int line = 1; std::getline(in, text); ++line) {
    std::smatch match;
    if (!std::regex_search(text, match, include)) continue;
    const std::string header = match[1];
    if (throughParent(header)) {
      violations.push_back(file + ":" + std::to_string(line) + ": " + layer->name + " includes " + header +
                           ", a path through '..' (name the header from its layer's include root)");
      continue;
    }
    const size_t slash = header.find('/');
    if (slash == std::string::npos || roots.count(header.substr(0, slash)) == 0) continue;
    if (!mayInclude(*layer, header))
      violations.push_back(file + ":" + std::to_string(line) + ": " + layer->name + " includes " + header +
                           ", outside what it may use: " + joined(layer->sees));
  }
}

}  // namespace

std::vector<Layer> readLayerRules(const fs::path& rules) {
  std::ifstream in(rules);
  if (!in) throw std::runtime_error("cannot read " + rules.string());
  std::vector<Layer> layers;
  std::string line;
  while (std::getline(in, line)) {
    std::istringstream words(line);
    Layer layer;
    if (!(words >> layer.folder >> layer.name)) continue;
    for (std::string path; words >> path;) layer.sees.push_back(path);
    layers.push_back(std::move(layer));
  }
  return layers;
}

std::vector<std::string> layeringViolations(const std::vector<Layer>& layers, const fs::path& root) {
  const std::set<std::string> roots = projectRoots(layers);
  std::vector<std::string> files;
  for (const char* top : {"src", "transports"})
    for (const auto& entry : fs::recursive_directory_iterator(root / top)) {
      const std::string extension = entry.path().extension();
      if (entry.is_regular_file() && (extension == ".h" || extension == ".cc"))
        files.push_back(fs::relative(entry.path(), root).string());
    }
  std::sort(files.begin(), files.end());
  std::vector<std::string> violations;
  for (const std::string& file : files) checkFile(layers, roots, root, file, violations);
  return violations;
}

}  // namespace trnccl::test
