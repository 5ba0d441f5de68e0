#include "runtime/dump_watcher.h"

#include <fcntl.h>
#include <signal.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <map>
#include <mutex>
#include <thread>

#include "base/error.h"
#include "base/log.h"

namespace trnccl::runtime {
namespace {

int signalPipe[2] = {-1, -1};
struct sigaction previousAction {};  // the application's handler, still called

void onSignal(int signal, siginfo_t* info, void* context) {
  const int saved = errno;
  const char byte = 1;
  // A full pipe already holds a pending request: dropping this one is fine.
  [[maybe_unused]] const ssize_t n = write(signalPipe[1], &byte, 1);
  errno = saved;
  if (previousAction.sa_flags & SA_SIGINFO)
    previousAction.sa_sigaction(signal, info, context);
  else if (previousAction.sa_handler != SIG_DFL && previousAction.sa_handler != SIG_IGN)
    previousAction.sa_handler(signal);
}

// Created once, never destroyed: the watcher thread lives as long as the
// process (it sleeps in read()).
struct Watcher {
  std::mutex mutex;  // held while dumps run, so remove() waits for them
  std::map<uint64_t, std::function<void()>> dumps;
  uint64_t nextId = 1;
  bool started = false;

  void start() {
    if (pipe2(signalPipe, O_CLOEXEC) != 0)
      throwError(trncclSystemError, std::string("SIGUSR1 dumps: pipe2: ") + std::strerror(errno));
    fcntl(signalPipe[1], F_SETFL, O_NONBLOCK);
    std::thread([this] { run(); }).detach();
    struct sigaction action {};
    action.sa_sigaction = onSignal;
    sigemptyset(&action.sa_mask);
    action.sa_flags = SA_RESTART | SA_SIGINFO;
    if (sigaction(SIGUSR1, &action, &previousAction) != 0)
      throwError(trncclSystemError, std::string("SIGUSR1 dumps: sigaction: ") + std::strerror(errno));
    started = true;
  }

  void run() {
    for (;;) {
      char bytes[64];
      const ssize_t n = read(signalPipe[0], bytes, sizeof(bytes));
      if (n < 0 && errno == EINTR) continue;
      if (n <= 0) return;
      std::lock_guard<std::mutex> lock(mutex);
      TRNCCL_INFO("SIGUSR1: dumping %zu flight recorders", dumps.size());
      for (auto& [id, dump] : dumps) dump();
    }
  }
};

Watcher& watcher() {
  static Watcher* w = new Watcher;
  return *w;
}

}  // namespace

uint64_t DumpWatcher::add(std::function<void()> dump) {
  Watcher& w = watcher();
  std::lock_guard<std::mutex> lock(w.mutex);
  if (!w.started) w.start();
  const uint64_t id = w.nextId++;
  w.dumps.emplace(id, std::move(dump));
  return id;
}

void DumpWatcher::remove(uint64_t id) {
  Watcher& w = watcher();
  std::lock_guard<std::mutex> lock(w.mutex);
  w.dumps.erase(id);
}

}  // namespace trnccl::runtime
