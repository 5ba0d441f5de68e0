// The layer rules of cmake/Layers.cmake (build/layers.txt) applied to the
// #include lines of a source tree.
#pragma once

#include <filesystem>
#include <string>
#include <vector>

namespace trnccl::test {

struct Layer {
  std::string folder;             // relative to the source tree: "src/algorithms"
  std::string name;               // the CMake target
  std::vector<std::string> sees;  // include paths it may use; a folder ends in '/'
};

// Parses layers.txt: a line per layer, "<folder> <name> <path>...".
std::vector<Layer> readLayerRules(const std::filesystem::path& rules);

// Every include in src/ and transports/ under `root` that its file's layer may
// not use or that goes through "..", and every file there that belongs to no
// layer, as "<file>:<line>: <what is wrong>".
std::vector<std::string> layeringViolations(const std::vector<Layer>& layers, const std::filesystem::path& root);

}  // namespace trnccl::test
