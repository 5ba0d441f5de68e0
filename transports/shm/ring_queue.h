// A FIFO queue on a power-of-two ring that keeps its storage: once it has held
// as many elements as a call needs, pushing and popping never allocate (a
// std::deque frees and allocates a block every few hundred bytes of traffic).
#pragma once

#include <cstddef>
#include <utility>
#include <vector>

namespace trnccl::transport::shm {

template <class T>
class RingQueue {
 public:
  bool empty() const { return front_ == back_; }
  size_t size() const { return back_ - front_; }
  T& front() { return items_[front_ & mask()]; }
  const T& front() const { return items_[front_ & mask()]; }
  void pop_front() { ++front_; }
  void push_back(const T& item) {
    if (size() == items_.size()) grow();
    items_[back_++ & mask()] = item;
  }
  void clear() { front_ = back_ = 0; }

 private:
  size_t mask() const { return items_.size() - 1; }
  void grow() {
    std::vector<T> bigger(items_.empty() ? 8 : 2 * items_.size());
    for (size_t i = front_; i != back_; ++i) bigger[i - front_] = std::move(items_[i & mask()]);
    back_ -= front_;
    front_ = 0;
    items_ = std::move(bigger);
  }

  std::vector<T> items_;
  size_t front_ = 0, back_ = 0;  // ever-growing positions; the slot is position & mask()
};

}  // namespace trnccl::transport::shm
