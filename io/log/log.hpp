// JSON-lines logging: one object per line with time, level, msg and fields.
#pragma once

#include <nlohmann/json.hpp>

#include <string>
#include <string_view>

namespace br::log {

enum class level { debug = 0, info = 1, warn = 2, error = 3 };

/// Parses "debug" | "info" | "warn" | "error"; returns false on anything else.
bool parse_level(std::string_view text, level& out);
std::string_view level_name(level l);

/// Global threshold; lines below it are dropped.
void set_level(level l);
level current_level();

/// Where lines go (default: stderr). Used by tests to capture output.
void set_sink(void (*sink)(const std::string& line));

/// Writes one line: {"time":"...","level":"...","msg":"...", ...fields}.
void write(level l, std::string_view msg, const nlohmann::json& fields = nlohmann::json::object());

inline void debug(std::string_view m, const nlohmann::json& f = nlohmann::json::object()) {
  write(level::debug, m, f);
}
inline void info(std::string_view m, const nlohmann::json& f = nlohmann::json::object()) {
  write(level::info, m, f);
}
inline void warn(std::string_view m, const nlohmann::json& f = nlohmann::json::object()) {
  write(level::warn, m, f);
}
inline void error(std::string_view m, const nlohmann::json& f = nlohmann::json::object()) {
  write(level::error, m, f);
}

/// Formats a system_clock time as RFC3339 UTC with milliseconds.
std::string rfc3339_ms(std::chrono::system_clock::time_point t);

}  // namespace br::log
