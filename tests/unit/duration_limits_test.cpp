// Bounds of configured durations outside the spec (the sidecar's variables, the duration flag
// check) and the saturating arithmetic the operator and sidecar use on configured durations.
#include <boost/test/unit_test.hpp>

#include <chrono>
#include <limits>
#include <map>
#include <string>

#include "config/duration.hpp"
#include "config/duration_limits.hpp"
#include "config/process_flags.hpp"
#include "config/saturating.hpp"
#include "config/sidecar_config.hpp"

using namespace br::config;
using namespace std::chrono_literals;

namespace {

using ns = std::chrono::nanoseconds;
using tp = std::chrono::steady_clock::time_point;
constexpr ns max_ns = ns::max();
constexpr ns min_ns = ns::min();

/// parse_flags over the sidecar's table with one variable set; the error ("" when accepted).
std::string sidecar_env_error(const std::string& var, const std::string& value) {
  std::map<std::string, std::string> env = {{var, value}};
  const char* argv[] = {"bloodraven-sidecar"};
  auto f = parse_flags(sidecar_flag_defs(), 1, argv, [&](const char* n) -> const char* {
    auto it = env.find(n);
    return it == env.end() ? nullptr : it->second.c_str();
  });
  return f.what == parsed_flags::action::fail ? f.error : std::string{};
}

}  // namespace

BOOST_AUTO_TEST_SUITE(duration_limits)

BOOST_AUTO_TEST_CASE(saturating_add_of_durations) {
  struct row {
    const char* name;
    ns a, b, want;
  };
  const row rows[] = {
      {"ordinary", 2s, 3s, 5s},
      {"zero", 0s, 0s, 0s},
      {"max plus one stays max", max_ns, 1ns, max_ns},
      {"max plus max stays max", max_ns, max_ns, max_ns},
      {"one below max plus one reaches max exactly", max_ns - 1ns, 1ns, max_ns},
      {"large plus large stays max", ns{std::numeric_limits<std::int64_t>::max() / 2 + 1},
       ns{std::numeric_limits<std::int64_t>::max() / 2 + 1}, max_ns},
      {"min minus one stays min", min_ns, -1ns, min_ns},
      {"mixed signs never saturate", max_ns, -1s, max_ns - 1s},
  };
  for (const auto& r : rows) {
    BOOST_TEST_CONTEXT(r.name) {
      BOOST_TEST(sat_add(r.a, r.b).count() == r.want.count());
      BOOST_TEST(sat_add(r.b, r.a).count() == r.want.count());  // commutative
    }
  }
}

BOOST_AUTO_TEST_CASE(saturating_sum_and_margin) {
  BOOST_TEST(sat_sum(ns{20s}, ns{5s}, ns{20s}, ns{2s}).count() == ns{47s}.count());
  // Four maximal durations: the plain sum wraps to -4ns; the saturating one stays at max.
  BOOST_TEST(sat_sum(max_ns, max_ns, max_ns, max_ns).count() == max_ns.count());
  BOOST_TEST(sat_sum(max_ns - 3ns, 1ns, 1ns, 1ns).count() == max_ns.count());
  // ceil(1.1 x d), saturating.
  BOOST_TEST(plus_ten_percent(ns{47s}).count() == ns{51700ms}.count());
  BOOST_TEST(plus_ten_percent(1ns).count() == 2);
  BOOST_TEST(plus_ten_percent(10ns).count() == 11);
  BOOST_TEST(plus_ten_percent(0ns).count() == 0);
  BOOST_TEST(plus_ten_percent(max_ns).count() == max_ns.count());
  BOOST_TEST(plus_ten_percent(max_ns / 11 * 10).count() == (max_ns / 11 * 11).count());
  BOOST_TEST(plus_ten_percent(max_ns / 10 * 10).count() == max_ns.count());  // would be 1.1 x
}

BOOST_AUTO_TEST_CASE(saturating_add_of_time_points) {
  const tp t0 = tp{} + 1000h;
  struct row {
    const char* name;
    tp t;
    ns d;
    tp want;
  };
  const row rows[] = {
      {"ordinary", t0, 5s, t0 + 5s},
      {"a huge timeout is the end of time, not the past", t0, max_ns, tp::max()},
      {"the end of time plus anything", tp::max(), 1ns, tp::max()},
      {"negative offsets saturate at the start", tp::min(), -1ns, tp::min()},
  };
  for (const auto& r : rows) {
    BOOST_TEST_CONTEXT(r.name) {
      auto got = sat_add(r.t, r.d);
      BOOST_TEST(got.time_since_epoch().count() == r.want.time_since_epoch().count());
      if (r.d > 0ns) BOOST_TEST((got > r.t || r.t == tp::max()), "moved backwards");
    }
  }
}

BOOST_AUTO_TEST_CASE(check_bounds_says_which_bound) {
  const duration_bounds b{100ms, 1min};
  BOOST_TEST(check_bounds(0s, b) == "must be a positive duration");
  BOOST_TEST(check_bounds(99ms, b) == "must be at least 100ms");
  BOOST_TEST(check_bounds(100ms, b).empty());
  BOOST_TEST(check_bounds(1min, b).empty());
  BOOST_TEST(check_bounds(1min + 1ns, b) == "must be at most 1m");
}

BOOST_AUTO_TEST_CASE(sidecar_variables_have_maxima) {
  // Each variable: its maximum is accepted, one nanosecond more is refused naming the variable.
  struct row {
    const char* var;
    const char* at_max;
    const char* over_max;
    const char* message;
  };
  const row rows[] = {
      {"LEASE_TIMEOUT", "1h", "1h1ns", "must be at most 1h"},
      {"PEER_CHECK_INTERVAL", "1m", "1m1ns", "must be at most 1m"},
      {"FENCE_TIMEOUT", "10m", "10m1ns", "must be at most 10m"},
      {"REQUEST_TIMEOUT", "1m", "1m1ns", "must be at most 1m"},
      {"SIDECAR_SHUTDOWN_TIMEOUT", "10m", "10m1ns", "must be at most 10m"},
      {"BLOODRAVEN_PITR_POLL_INTERVAL", "24h", "24h1ns", "must be at most 24h"},
  };
  for (const auto& r : rows) {
    BOOST_TEST_CONTEXT(r.var) {
      BOOST_TEST(sidecar_env_error(r.var, r.at_max).empty(), sidecar_env_error(r.var, r.at_max));
      auto err = sidecar_env_error(r.var, r.over_max);
      BOOST_TEST(err.find(r.var) != std::string::npos, err);
      BOOST_TEST(err.find(r.message) != std::string::npos, err);
      // The largest value the parser accepts is refused the same way (no wrap downstream).
      auto huge = sidecar_env_error(r.var, "2562047h47m16.854775807s");
      BOOST_TEST(huge.find(r.message) != std::string::npos, huge);
    }
  }
}

BOOST_AUTO_TEST_CASE(sidecar_variables_have_minima_where_zero_means_no_deadline) {
  struct row {
    const char* var;
    const char* at_min;
    const char* under_min;
    const char* message;
  };
  const row rows[] = {
      {"FENCE_TIMEOUT", "1s", "999ms", "must be at least 1s"},
      {"REQUEST_TIMEOUT", "100ms", "99ms", "must be at least 100ms"},
  };
  for (const auto& r : rows) {
    BOOST_TEST_CONTEXT(r.var) {
      BOOST_TEST(sidecar_env_error(r.var, r.at_min).empty(), sidecar_env_error(r.var, r.at_min));
      auto err = sidecar_env_error(r.var, r.under_min);
      BOOST_TEST(err.find(r.var) != std::string::npos, err);
      BOOST_TEST(err.find(r.message) != std::string::npos, err);
    }
  }
}

BOOST_AUTO_TEST_CASE(every_value_the_spec_accepts_the_sidecar_accepts) {
  // The rendered FENCE_TIMEOUT, REQUEST_TIMEOUT, LEASE_TIMEOUT and PEER_CHECK_INTERVAL come from
  // the spec; the spec's extremes must start a sidecar.
  const std::pair<const char*, const char*> extremes[] = {
      {"FENCE_TIMEOUT", "1s"},   {"FENCE_TIMEOUT", "10m"},      {"REQUEST_TIMEOUT", "100ms"},
      {"REQUEST_TIMEOUT", "1m"}, {"LEASE_TIMEOUT", "3s"},       {"LEASE_TIMEOUT", "1h"},
      {"PEER_CHECK_INTERVAL", "1s"}, {"PEER_CHECK_INTERVAL", "1m"}};
  for (auto [var, value] : extremes)
    BOOST_TEST(sidecar_env_error(var, value).empty(), var << "=" << value);
}

BOOST_AUTO_TEST_CASE(generic_duration_check_has_a_maximum) {
  BOOST_TEST(check_duration("24h").empty());
  BOOST_TEST(check_duration("24h1ns") == "must be at most 24h");
  BOOST_TEST(check_duration("0s") == "must be greater than zero");
  BOOST_TEST(check_duration("2562047h47m16.854775807s") == "must be at most 24h");
  auto c = check_duration_within(1s, 10min);
  BOOST_TEST(c("10m").empty());
  BOOST_TEST(c("10m1ns") == "must be at most 10m");
  BOOST_TEST(c("500ms") == "must be at least 1s");
  BOOST_TEST(c("x").find("invalid duration") != std::string::npos);
}

BOOST_AUTO_TEST_SUITE_END()
