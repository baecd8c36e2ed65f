// DST checker: the bounded event trace and the S1 (one-writer) check run after every event.
#pragma once

#include <cstdint>
#include <deque>
#include <sstream>
#include <string>
#include <vector>

namespace br::dst {

/// Keeps only the last `keep` events: a failure prints a short, readable tail, not the whole run.
class trace_log {
 public:
  explicit trace_log(size_t keep = 40) : keep_(keep) {}

  void add(int64_t tick, std::string what) {
    events_.push_back("t=" + std::to_string(tick) + " " + std::move(what));
    if (events_.size() > keep_) events_.pop_front();
  }

  std::string dump() const {
    std::ostringstream out;
    for (auto& e : events_) out << "  " << e << '\n';
    return out.str();
  }

 private:
  size_t keep_;
  std::deque<std::string> events_;
};

/// First S1 violation of a run: when, and which sites were writable together.
struct violation {
  bool found = false;
  int64_t tick = 0;
  std::vector<std::string> writers;
  std::string what = "S1: two writable sites";
  std::string trace;
};

}  // namespace br::dst
