// What every fuzz target shares: a broken invariant aborts with a message
// (libFuzzer then saves the input), and the only exception a parser may
// throw for bad input is trnccl::Error with trncclInvalidArgument (or the
// code the parser documents); anything else escapes and counts as a crash.
#pragma once

#include <cstdio>
#include <cstdlib>

#define FUZZ_CHECK(condition)                                                                \
  do {                                                                                       \
    if (!(condition)) {                                                                      \
      std::fprintf(stderr, "%s:%d: invariant broken: %s\n", __FILE__, __LINE__, #condition); \
      std::abort();                                                                          \
    }                                                                                        \
  } while (0)
