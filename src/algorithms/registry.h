// The one list of algorithms there are, for the tuner, TRNCCL_ALGO and the
// tests. Each algorithm's file registers what it offers with one line,
//   TRNCCL_REGISTER_ALGORITHMS(ring, {Reach::AnyRanks, make<Ring>, 0})
// (inside namespace trnccl::algo; the first argument is the file's name
// without .cc), and that name goes into TRNCCL_ALGORITHMS in
// src/algorithms/algorithms.cmake, in any order: the list here is in the
// order of the tuner's tie rule (preferredOnTie).
//
// Why not self-registration by static initialisers: libtrnccl.a is a static
// archive, and a linker leaves out an archive member that nothing
// references, its initialisers with it. Here the macro defines a function
// named after the file, and the registry calls every one of them from a list
// CMake writes from TRNCCL_ALGORITHMS: each algorithm's object is referenced,
// so it is linked, in the list's order, whoever links the archive. A file in
// the list without its macro is a link error, not a silently missing entry.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "algorithms/algorithm.h"

namespace trnccl::algo {

// Where an algorithm can run.
enum class Reach {
  AnyRanks,   // any group of ranks, on one instance or several
  Instances,  // only ranks on two instances or more (hierarchical)
  Chips,      // only ranks on a grid of two chips or more within one instance (chip_rdh)
};

// "any-ranks", "instances", "chips".
const char* reachName(Reach reach);

using AlgorithmFactory = std::unique_ptr<Algorithm> (*)();

// The factory of an algorithm made without arguments.
template <class A>
std::unique_ptr<Algorithm> make() {
  return std::make_unique<A>();
}

// One algorithm a file offers.
struct AlgorithmVariant {
  Reach reach;
  AlgorithmFactory make;
  // How simple its schedule is, for the tuner's tie rule: 0 the simplest.
  int simplicity;
};

struct RegisteredAlgorithm {
  std::string name;  // make()->name()
  Reach reach;
  AlgorithmFactory make;
  int simplicity;
};

// The tuner's tie rule: of algorithms predicted equally fast, the simpler
// wins (the lower simplicity: fewer parts to go wrong or to explain), and of
// equally simple ones the name first in alphabetical order.
bool preferredOnTie(const RegisteredAlgorithm& a, const RegisteredAlgorithm& b);

// Every algorithm, ordered by preferredOnTie.
const std::vector<RegisteredAlgorithm>& registeredAlgorithms();

}  // namespace trnccl::algo

// The function through which the file `file` (file.cc) registers its algorithms.
#define TRNCCL_ALGORITHMS_OF(file) algorithmsOf_##file

#define TRNCCL_REGISTER_ALGORITHMS(file, ...)                 \
  std::vector<AlgorithmVariant> TRNCCL_ALGORITHMS_OF(file)(); \
  std::vector<AlgorithmVariant> TRNCCL_ALGORITHMS_OF(file)() { return {__VA_ARGS__}; }
