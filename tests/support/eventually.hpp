// Test helper: wait for a condition with a generous safety deadline (never a timing assertion).
#pragma once

#include <chrono>
#include <functional>
#include <thread>

namespace br::test {

/// Calls `pred` every `every` until it holds or `deadline` passes, then once more.
inline bool eventually(const std::function<bool()>& pred, std::chrono::milliseconds deadline,
                       std::chrono::milliseconds every = std::chrono::milliseconds(200)) {
  auto until = std::chrono::steady_clock::now() + deadline;
  while (std::chrono::steady_clock::now() < until) {
    if (pred()) return true;
    std::this_thread::sleep_for(every);
  }
  return pred();
}

}  // namespace br::test
