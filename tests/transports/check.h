// Helpers for transport tests' rank bodies: driving requests to completion
// as the runtime does, message contents that reveal misplaced bytes, and
// environment variables.
#pragma once

#include <chrono>
#include <cstddef>
#include <functional>
#include <string>
#include <vector>

#include "base/error.h"
#include "tests/support/scoped_env.h"
#include "tests/transports/test_oob.h"
#include "transports/transport.h"

namespace trnccl::test {

// A request as a caller fills it in before posting it.
transport::Request makeRequest(int peer, transport::Tag tag, void* buffer, size_t bytes);

// Throws std::runtime_error(message) unless `condition`.
void expect(bool condition, const std::string& message);
// expect() that `message` contains each of `parts`.
void expectMentions(const std::string& message, const std::vector<std::string>& parts);

// progress() with the runtime's Backoff (spin, yield, wait()) until every
// request is done; throws std::runtime_error after `timeout`, and on any
// error cancels everything first (so the caller may free its buffers). The defaults
// here and in test_oob.h and launch.h leave room for a 2-core machine running
// two multi-rank tests at once: a 64 MiB message over ofi's udp provider once
// took more than 30 s there.
void drive(transport::Transport& transport, const std::vector<transport::Request*>& requests,
           std::chrono::milliseconds timeout = std::chrono::seconds(90));

// The trnccl::Error that `step` throws; std::runtime_error if it throws none.
Error errorFrom(const std::function<void()>& step);

// Content of the message from `from` to `to` with `tag`: every byte depends on
// its offset (also across slot-sized shifts) and on the message.
void fillPattern(void* buffer, size_t bytes, int from, int to, transport::Tag tag);
// Empty if `buffer` holds that content, else where and how it first differs.
std::string patternMismatch(const void* buffer, size_t bytes, int from, int to, transport::Tag tag);

// All other ranks as peers.
transport::Options optionsFor(const TestOutOfBand& oob, const std::string& jobKey);
// A job key no other test (or earlier run) uses.
std::string uniqueJobKey(const std::string& what);

}  // namespace trnccl::test
