// The checks and schema choice of `restore --replace` (see replace_target.hpp).
#include "io/backup/replace_target.hpp"

#include <algorithm>
#include <array>
#include <cctype>

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

std::string quote_identifier(const std::string& name) {
  std::string out = "`";
  for (char c : name) {
    if (c == '`') out += '`';
    out += c;
  }
  return out + "`";
}

}  // namespace br::backup
