// The checks and schema choice of `restore --replace` (see replace_target.hpp).
#include "io/backup/replace_target.hpp"

#include <algorithm>
#include <array>
#include <cctype>

#include "io/binlog/binlog_name.hpp"

namespace br::backup {

std::string replace_refusal(const replace_facts& f, const std::string& target) {
  const std::string who = "the target " + target;
  if (f.replicas_attached > 0)
    return who + " still has " + std::to_string(f.replicas_attached) +
           " replica(s) attached (Binlog Dump threads): a replace resets its binary logs and GTIDs under them; "
           "stop their replication first";
  if (!f.channels.empty()) {
    std::string names;
    for (const auto& c : f.channels) names += (names.empty() ? "" : ", ") + (c.empty() ? std::string("(default)") : c);
    return who + " is a replica (channel " + names + " is not OFF): its applier would write into the load; "
           "stop and remove the channel first";
  }
  if (!f.super_read_only)
    return who + " is writable (super_read_only is OFF" + std::string(f.read_only ? ", read_only ON" : "") +
           "): fence it first, a replace discards every write it takes";
  if (f.gtid_mode != "ON") return who + " has gtid_mode " + (f.gtid_mode.empty() ? "NULL" : f.gtid_mode) + ": restore needs gtid_mode ON";
  return "";
}

std::vector<std::string> schemas_to_drop(const std::vector<std::string>& schemas) {
  static const std::array<std::string, 5> kept = {"mysql", "sys", "information_schema", "performance_schema",
                                                 "bloodraven"};
  std::vector<std::string> out;
  for (const auto& s : schemas) {
    std::string lower = s;
    std::transform(lower.begin(), lower.end(), lower.begin(), [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
    if (std::find(kept.begin(), kept.end(), lower) == kept.end()) out.push_back(s);
  }
  return out;
}

std::optional<std::string> reset_statement(const std::vector<std::string>& binlog_names, std::string& error) {
  constexpr uint64_t max_index = 2000000000;  // MySQL's bound for RESET BINARY LOGS AND GTIDS TO
  if (binlog_names.empty()) return std::string("RESET BINARY LOGS AND GTIDS");
  uint64_t highest = 0;
  for (const auto& n : binlog_names) {
    auto p = binlog::parse_binlog_name(n);
    if (!p) {
      error = "binary log " + n + " has no index number: cannot choose the name to reset to";
      return std::nullopt;
    }
    highest = std::max(highest, p->number);
  }
  if (highest + 1 > max_index) {
    error = "the binary log index " + std::to_string(highest) + " leaves no higher one to reset to (MySQL's limit is " +
            std::to_string(max_index) + ")";
    return std::nullopt;
  }
  return "RESET BINARY LOGS AND GTIDS TO " + std::to_string(highest + 1);
}

std::string mark_discarded_statement(const gtid_set& before) {
  return "SET GLOBAL gtid_purged = CONCAT('+', GTID_SUBTRACT('" + before.to_compact_string() +
         "', @@GLOBAL.gtid_executed))";
}

bool is_account_statement(std::string_view s) {
  // Words in upper case, separated by single spaces, after spaces and /* */ comments.
  std::string words;
  size_t i = 0;
  while (i < s.size() && words.size() < 32) {
    if (std::isspace(static_cast<unsigned char>(s[i]))) {
      if (!words.empty() && words.back() != ' ') words += ' ';
      ++i;
    } else if (s.compare(i, 2, "/*") == 0) {
      auto end = s.find("*/", i + 2);
      if (end == std::string_view::npos) break;
      i = end + 2;
      if (!words.empty() && words.back() != ' ') words += ' ';
    } else {
      words += static_cast<char>(std::toupper(static_cast<unsigned char>(s[i++])));
    }
  }
  static const std::array<std::string_view, 10> starts = {"CREATE USER ", "ALTER USER ", "DROP USER ", "RENAME USER ",
                                                           "CREATE ROLE ", "DROP ROLE ", "GRANT ", "REVOKE ",
                                                           "SET PASSWORD ", "SET DEFAULT ROLE "};
  words += ' ';
  for (auto p : starts)
    if (words.rfind(p, 0) == 0) return true;
  return false;
}

std::string quote_identifier(const std::string& name) {
  std::string out = "`";
  for (char c : name) {
    if (c == '`') out += '`';
    out += c;
  }
  return out + "`";
}

}  // namespace br::backup
