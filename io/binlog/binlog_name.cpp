// Binary log file names (see binlog_name.hpp).
#include "io/binlog/binlog_name.hpp"

#include <tuple>

namespace br::binlog {

std::optional<binlog_name> parse_binlog_name(const std::string& name) {
  auto dot = name.rfind('.');
  if (dot == std::string::npos || dot == 0) return std::nullopt;
  auto digits = name.substr(dot + 1);
  if (digits.empty() || digits.size() > 10 || digits.find_first_not_of("0123456789") != std::string::npos)
    return std::nullopt;
  return binlog_name{name.substr(0, dot), std::stoull(digits)};
}

bool binlog_name_less(const std::string& a, const std::string& b) {
  auto key = [](const std::string& n) {
    auto p = parse_binlog_name(n);
    return p ? std::make_tuple(p->base, 0, p->number, n) : std::make_tuple(n, 1, uint64_t{0}, n);
  };
  return key(a) < key(b);
}

}  // namespace br::binlog
