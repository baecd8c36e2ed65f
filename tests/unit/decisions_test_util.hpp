// Shared helpers for the decision-function table tests: GTID fixtures, printers, site builders.
#pragma once

#include <boost/test/unit_test.hpp>
#include <ostream>
#include <string>
#include <vector>

#include "messages/decisions.hpp"

namespace br {
// Boost.Test printers (found by ADL). static: one copy per test file, no ODR clash with others.
[[maybe_unused]] static std::ostream& boost_test_print_type(std::ostream& os, site_state s) {
  return os << to_string(s);
}
[[maybe_unused]] static std::ostream& boost_test_print_type(std::ostream& os, site_role r) {
  return os << to_string(r);
}
[[maybe_unused]] static std::ostream& boost_test_print_type(std::ostream& os, group_verdict v) {
  return os << to_string(v);
}
[[maybe_unused]] static std::ostream& boost_test_print_type(std::ostream& os, split_brain_tier t) {
  return os << to_string(t);
}
[[maybe_unused]] static std::ostream& boost_test_print_type(std::ostream& os, reassert_verdict v) {
  return os << to_string(v);
}
[[maybe_unused]] static std::ostream& boost_test_print_type(std::ostream& os, gate_verdict v) {
  return os << to_string(v);
}
[[maybe_unused]] static std::ostream& boost_test_print_type(std::ostream& os, gate_rule r) {
  return os << to_string(r);
}
[[maybe_unused]] static std::ostream& boost_test_print_type(std::ostream& os, recovery_kind k) {
  return os << to_string(k);
}
[[maybe_unused]] static std::ostream& boost_test_print_type(std::ostream& os, reclone_kind k) {
  return os << to_string(k);
}
[[maybe_unused]] static std::ostream& boost_test_print_type(std::ostream& os, record_source s) {
  return os << to_string(s);
}
[[maybe_unused]] static std::ostream& boost_test_print_type(std::ostream& os, const gtid_set& s) {
  return os << "{" << s.to_compact_string() << "}";
}
}  // namespace br

namespace br::test {

// Server uuids in the form MySQL prints them.
inline const std::string uuid_a = "bd414d9a-e603-11f1-821b-02fc00000001";
inline const std::string uuid_b = "bf5d5d75-e603-11f1-aa37-02fc00000001";

/// Parses a GTID text or fails the test.
inline gtid_set gtids(const std::string& text) {
  gtid_parse_error err;
  auto s = gtid_set::parse(text, &err);
  BOOST_TEST_REQUIRE(s.has_value(), "fixture GTID text does not parse: " << err.to_string());
  return *s;
}

inline site_observation site(std::string name, site_role role, site_state state) {
  return site_observation{std::move(name), role, state};
}
inline site_observation cand(std::string name, site_state state) {
  return site(std::move(name), site_role::primary_candidate, state);
}
inline site_observation dr(std::string name, site_state state) {
  return site(std::move(name), site_role::dr_only, state);
}
inline site_observation reader(std::string name, site_state state) {
  return site(std::move(name), site_role::read_only, state);
}

using names = std::vector<std::string>;

}  // namespace br::test
