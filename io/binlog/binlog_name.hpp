// Binary log file names ("binlog.000123"): the base and the server's sequence number, so files
// sort in the order the server wrote them (a name past binlog.999999 gets a seventh digit, which
// plain string order would put first).
#pragma once

#include <cstdint>
#include <optional>
#include <string>

namespace br::binlog {

struct binlog_name {
  std::string base;     ///< "binlog"
  uint64_t number = 0;  ///< 123
};

/// "binlog.000123" -> {"binlog", 123}; nullopt when the part after the last '.' is not 1-10 digits.
std::optional<binlog_name> parse_binlog_name(const std::string& name);

/// Strict weak order of file names: by base, then sequence number; names without a number after
/// numbered ones of the same base, by text.
bool binlog_name_less(const std::string& a, const std::string& b);

}  // namespace br::binlog
