// The fixture of the step() table tests (group_step_test.cpp, group_step_bootstrap_test.cpp): a
// group a, b, c of primary candidates driven through step() with values only, and its helpers.
#pragma once

#include <boost/test/unit_test.hpp>

#include <algorithm>
#include <functional>
#include <optional>
#include <ostream>
#include <string>
#include <vector>

#include "actors/operator/decide/group_step.hpp"
#include "tests/support/site_reports.hpp"

namespace br {
// Printable enums for BOOST_TEST messages.
inline std::ostream& operator<<(std::ostream& os, plan_kind k) { return os << to_string(k); }
inline std::ostream& operator<<(std::ostream& os, plan_phase p) { return os << to_string(p); }
inline std::ostream& operator<<(std::ostream& os, group_verdict v) { return os << to_string(v); }
}  // namespace br

namespace group_step_test {

using namespace br;
using namespace std::chrono_literals;

inline const std::string U1 = "3e11fa47-71ca-11e1-9e33-c80aa9429562";
inline const std::string U2 = "4e11fa47-71ca-11e1-9e33-c80aa9429562";
inline const std::string U3 = "5e11fa47-71ca-11e1-9e33-c80aa9429562";

inline std::string gtid(const std::string& uuid, int first, int last) {
  return uuid + ":" + std::to_string(first) + "-" + std::to_string(last);
}

using br::reports::rep;

struct group_fixture {
  group_rules rules;
  group_state st;
  step_clock clock;
  std::vector<group_effect> effects;
  std::optional<std::string> answer;

  group_fixture() {
    rules.group = "g";
    rules.sites = {"a", "b", "c"};
    for (auto& s : rules.sites) rules.roles[s] = site_role::primary_candidate;
    rules.poll_interval = 2s;
    rules.failover_cooldown = 5min;
    rules.plan_retry_delay = 30s;
    clock.now = mono_time(100h);
    clock.wall = wall_time(std::chrono::hours(24 * 365 * 50));
  }

  void run(group_input in) {
    auto r = step(rules, st, in, clock);
    st = std::move(r.state);
    effects = std::move(r.effects);
    answer = std::move(r.answer);
  }

  void advance(caf::timespan d) {
    clock.now += d;
    clock.wall += d;
  }

  template <class E>
  std::vector<E> all() const {
    std::vector<E> out;
    for (const auto& e : effects)
      if (auto x = std::get_if<E>(&e)) out.push_back(*x);
    return out;
  }

  template <class E>
  size_t count() const {
    return all<E>().size();
  }

  bool has_event(const std::string& reason) const {
    auto evs = all<effect::emit>();
    return std::any_of(evs.begin(), evs.end(),
                       [&](const effect::emit& e) { return e.event.reason == reason; });
  }

  bool has_log(const std::string& message) const {
    auto ls = all<effect::log>();
    return std::any_of(ls.begin(), ls.end(),
                       [&](const effect::log& l) { return l.message == message; });
  }

  bool has_metric(metric_kind k) const {
    auto ms = all<effect::metric>();
    return std::any_of(ms.begin(), ms.end(), [&](const effect::metric& m) { return m.kind == k; });
  }

  std::vector<std::string> fenced() const {
    std::vector<std::string> out;
    for (auto& f : all<effect::fence>()) out.push_back(f.site);
    return out;
  }

  /// The durable state step() asked to write (and that no other write is asked at once).
  durable_state persisted_next() const {
    auto ps = all<effect::persist>();
    BOOST_REQUIRE_EQUAL(ps.size(), 1u);
    return ps.front().next;
  }

  void load(durable_state d = {}) { run(input::loaded{std::move(d)}); }
  void store_ok() { run(input::persisted{true, ""}); }
  void report(site_report r) { run(input::report{std::move(r)}); }

  /// A loaded group with `active` published at `epoch` and every site reported.
  void settled(const std::string& active, uint64_t epoch, const std::string& active_gtid,
               const std::string& follower_gtid) {
    durable_state d;
    d.view = {epoch, active, "", 1, {}};
    load(d);
    for (auto& s : rules.sites)
      report(s == active ? rep(s, site_state::writable, active_gtid)
                         : rep(s, site_state::read_only, follower_gtid, true));
  }
};

}  // namespace group_step_test
