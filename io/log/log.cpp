// JSON-lines logger implementation (thread-safe, one write per line).
#include "io/log/log.hpp"

#include <atomic>
#include <chrono>
#include <cstdio>
#include <ctime>
#include <mutex>

namespace br::log {
namespace {

std::atomic<int> g_level{static_cast<int>(level::info)};
std::mutex g_mutex;

void stderr_sink(const std::string& line) {
  std::fwrite(line.data(), 1, line.size(), stderr);
  std::fflush(stderr);
}

std::atomic<void (*)(const std::string&)> g_sink{&stderr_sink};

}  // namespace

bool parse_level(std::string_view text, level& out) {
  if (text == "debug") out = level::debug;
  else if (text == "info") out = level::info;
  else if (text == "warn") out = level::warn;
  else if (text == "error") out = level::error;
  else return false;
  return true;
}

std::string_view level_name(level l) {
  switch (l) {
    case level::debug: return "debug";
    case level::info: return "info";
    case level::warn: return "warn";
    case level::error: return "error";
  }
  return "info";
}

void set_level(level l) { g_level = static_cast<int>(l); }
level current_level() { return static_cast<level>(g_level.load()); }
void set_sink(void (*sink)(const std::string&)) { g_sink = sink ? sink : &stderr_sink; }

std::string rfc3339_ms(std::chrono::system_clock::time_point t) {
  using namespace std::chrono;
  auto secs = time_point_cast<seconds>(t);
  auto ms = duration_cast<milliseconds>(t - secs).count();
  std::time_t tt = system_clock::to_time_t(secs);
  std::tm tm{};
  gmtime_r(&tt, &tm);
  char buf[64];
  std::snprintf(buf, sizeof buf, "%04d-%02d-%02dT%02d:%02d:%02d.%03dZ", tm.tm_year + 1900,
                tm.tm_mon + 1, tm.tm_mday, tm.tm_hour, tm.tm_min, tm.tm_sec, static_cast<int>(ms));
  return buf;
}

void write(level l, std::string_view msg, const nlohmann::json& fields) {
  if (static_cast<int>(l) < g_level.load()) return;
  nlohmann::json line = nlohmann::json::object();
  line["time"] = rfc3339_ms(std::chrono::system_clock::now());
  line["level"] = level_name(l);
  line["msg"] = msg;
  if (fields.is_object())
    for (auto& [k, v] : fields.items())
      if (k != "time" && k != "level" && k != "msg") line[k] = v;
  auto text = line.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
  text += '\n';
  std::lock_guard<std::mutex> guard{g_mutex};
  g_sink.load()(text);
}

}  // namespace br::log
