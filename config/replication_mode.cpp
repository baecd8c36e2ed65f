// spec.replication.mode / groupReplication: enum names, strict JSON reading, canonical JSON.
#include "config/replication_mode.hpp"

#include <random>

#include "config/json_reader.hpp"

namespace br::config {

std::string_view to_string(replication_mode m) {
  return m == replication_mode::group_replication ? "groupReplication" : "async";
}

std::string_view to_string(gr_consistency c) {
  switch (c) {
    case gr_consistency::eventual: return "EVENTUAL";
    case gr_consistency::before_on_primary_failover: return "BEFORE_ON_PRIMARY_FAILOVER";
    case gr_consistency::before: return "BEFORE";
    case gr_consistency::after: return "AFTER";
    case gr_consistency::before_and_after: return "BEFORE_AND_AFTER";
  }
  return "BEFORE_ON_PRIMARY_FAILOVER";
}

std::string_view to_string(gr_exit_state_action a) {
  switch (a) {
    case gr_exit_state_action::read_only: return "READ_ONLY";
    case gr_exit_state_action::offline_mode: return "OFFLINE_MODE";
    case gr_exit_state_action::abort_server: return "ABORT_SERVER";
  }
  return "READ_ONLY";
}

void read(const json& v, const std::string& path, replication_mode& out, field_errors& errs) {
  read_enum(v, path, out,
            {{"async", replication_mode::async},
             {"groupReplication", replication_mode::group_replication}},
            errs);
}

// Found by the reader through ADL, so in br::config itself (not an unnamed namespace).
void read(const json& v, const std::string& path, gr_consistency& out, field_errors& errs) {
  read_enum(v, path, out,
            {{"EVENTUAL", gr_consistency::eventual},
             {"BEFORE_ON_PRIMARY_FAILOVER", gr_consistency::before_on_primary_failover},
             {"BEFORE", gr_consistency::before},
             {"AFTER", gr_consistency::after},
             {"BEFORE_AND_AFTER", gr_consistency::before_and_after}},
            errs);
}

void read(const json& v, const std::string& path, gr_exit_state_action& out, field_errors& errs) {
  read_enum(v, path, out,
            {{"READ_ONLY", gr_exit_state_action::read_only},
             {"OFFLINE_MODE", gr_exit_state_action::offline_mode},
             {"ABORT_SERVER", gr_exit_state_action::abort_server}},
            errs);
}

void read(const json& v, const std::string& path, group_replication_spec& out,
          field_errors& errs) {
  json_reader r{v, path, errs};
  r.field("consistency", out.consistency)
      .field("exitStateAction", out.exit_state_action)
      .field("autoRejoinTries", out.auto_rejoin_tries)
      .field("groupName", out.group_name)
      .field("multiPrimary", out.multi_primary)
      .field("maxSwitchoverDelay", out.max_switchover_delay)
      .done();
}

void read(const json& v, const std::string& path, site_group_replication_spec& out,
          field_errors& errs) {
  json_reader r{v, path, errs};
  r.field("localAddress", out.local_address).done();
}

json to_json(const group_replication_spec& s) {
  json j = {{"consistency", std::string{to_string(s.consistency)}},
            {"exitStateAction", std::string{to_string(s.exit_state_action)}},
            {"autoRejoinTries", s.auto_rejoin_tries},
            {"maxSwitchoverDelay", format_duration(s.max_switchover_delay)}};
  if (!s.group_name.empty()) j["groupName"] = s.group_name;
  if (s.multi_primary) j["multiPrimary"] = true;
  return j;
}

json to_json(const site_group_replication_spec& s) {
  json j = json::object();
  if (!s.local_address.empty()) j["localAddress"] = s.local_address;
  return j;
}

std::string random_uuid() {
  std::random_device rd;
  unsigned char b[16];
  for (auto& x : b) x = static_cast<unsigned char>(rd() & 0xff);
  b[6] = static_cast<unsigned char>((b[6] & 0x0f) | 0x40);  // version 4
  b[8] = static_cast<unsigned char>((b[8] & 0x3f) | 0x80);  // RFC 4122 variant
  static const char* hex = "0123456789abcdef";
  std::string out;
  for (int i = 0; i < 16; ++i) {
    if (i == 4 || i == 6 || i == 8 || i == 10) out += '-';
    out += hex[b[i] >> 4];
    out += hex[b[i] & 0x0f];
  }
  return out;
}

bool is_uuid(std::string_view s) {
  if (s.size() != 36) return false;
  for (std::size_t i = 0; i < s.size(); ++i) {
    char c = s[i];
    if (i == 8 || i == 13 || i == 18 || i == 23) {
      if (c != '-') return false;
    } else if (!((c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F'))) {
      return false;
    }
  }
  return true;
}

}  // namespace br::config
