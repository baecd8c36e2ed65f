// Go-style duration parsing/formatting and RFC 3339 timestamps: table tests and round trips.
#include "config/duration.hpp"

#include <boost/test/unit_test.hpp>
#include <random>

#include "config/rfc3339.hpp"

using namespace br::config;
using namespace std::chrono_literals;

BOOST_AUTO_TEST_SUITE(duration_suite)

BOOST_AUTO_TEST_CASE(parses_valid_durations) {
  struct row {
    const char* text;
    duration expected;
  };
  const row rows[] = {
      {"2s", 2s},
      {"500ms", 500ms},
      {"5m", 5min},
      {"1h30m", 90min},
      {"0", 0s},
      {"0s", 0s},
      {"1.5s", 1500ms},
      {"1h0m0s", 1h},
      {"250us", 250us},
      {"250\xC2\xB5s", 250us},
      {"250\xCE\xBCs", 250us},
      {"7ns", 7ns},
      {".5s", 500ms},
      {"1.s", 1s},
      {"2h45m30.5s", 2h + 45min + 30s + 500ms},
      {"1m1m", 2min},
      {"0.000000001s", 1ns},
      {"2562047h", 2562047h},
  };
  for (const auto& r : rows) {
    BOOST_TEST_CONTEXT("text " << r.text) {
      auto parsed = parse_duration(r.text);
      BOOST_TEST_REQUIRE(static_cast<bool>(parsed), parsed.error);
      BOOST_TEST(parsed.value->count() == r.expected.count());
    }
  }
}

BOOST_AUTO_TEST_CASE(rejects_invalid_durations) {
  struct row {
    const char* text;
    const char* fragment;  // expected in the error message
  };
  const row rows[] = {
      {"", "empty"},
      {"5", "missing unit"},
      {"-1s", "sign"},
      {"+1s", "sign"},
      {"1x", "unknown unit \"x\""},
      {"s", "expected a number"},
      {"1s2", "missing unit"},
      {"1 s", "unknown unit"},
      {".s", "expected a number"},
      {"3000000h", "out of range"},
      {"99999999999999999999ns", "out of range"},
      {"1S", "unknown unit"},
  };
  for (const auto& r : rows) {
    BOOST_TEST_CONTEXT("text \"" << r.text << "\"") {
      auto parsed = parse_duration(r.text);
      BOOST_TEST(!parsed);
      BOOST_TEST(parsed.error.find(r.fragment) != std::string::npos, parsed.error);
    }
  }
}

BOOST_AUTO_TEST_CASE(formats_compactly) {
  struct row {
    duration d;
    const char* text;
  };
  const row rows[] = {{0s, "0s"},          {2s, "2s"},          {500ms, "500ms"}, {5min, "5m"},
                      {90min, "1h30m"},    {1500ms, "1s500ms"}, {1ns, "1ns"},     {-2s, "-2s"},
                      {1h + 1ns, "1h1ns"}, {24h, "24h"}};
  for (const auto& r : rows) BOOST_TEST(format_duration(r.d) == r.text);
}

BOOST_AUTO_TEST_CASE(format_then_parse_round_trips) {
  std::mt19937_64 rng{42};
  std::uniform_int_distribution<std::int64_t> any{0, std::numeric_limits<std::int64_t>::max()};
  std::uniform_int_distribution<std::int64_t> small{0, 10'000'000'000'000};
  for (int i = 0; i < 2000; ++i) {
    duration d{i % 2 ? any(rng) : small(rng)};
    auto text = format_duration(d);
    auto parsed = parse_duration(text);
    BOOST_TEST_REQUIRE(static_cast<bool>(parsed), text << ": " << parsed.error);
    BOOST_TEST(parsed.value->count() == d.count(), text);
  }
  auto max = duration{std::numeric_limits<std::int64_t>::max()};
  BOOST_TEST(parse_duration(format_duration(max)).value->count() == max.count());
}

BOOST_AUTO_TEST_CASE(rfc3339_parse_and_format) {
  using namespace std::chrono;
  auto t = parse_rfc3339("2024-05-01T12:00:00Z");
  BOOST_TEST_REQUIRE(t.has_value());
  BOOST_TEST(format_rfc3339(*t) == "2024-05-01T12:00:00Z");
  BOOST_TEST(t->time_since_epoch().count() == 1714564800000);
  auto offset = parse_rfc3339("2024-05-01T14:00:00.25+02:00");
  BOOST_TEST_REQUIRE(offset.has_value());
  BOOST_TEST(format_rfc3339(*offset) == "2024-05-01T12:00:00.250Z");
  BOOST_TEST(format_rfc3339(*parse_rfc3339("1999-12-31T23:59:59.123456789-00:30")) ==
             "2000-01-01T00:29:59.123Z");
  for (const char* bad :
       {"", "2024-05-01", "2024-05-01T12:00:00", "2024-13-01T00:00:00Z", "2024-02-30T00:00:00Z",
        "2024-05-01T12:00:00Zjunk", "2024-05-01T12:00:00.Z", "2024-05-01T25:00:00Z"})
    BOOST_TEST(!parse_rfc3339(bad).has_value(), "accepted \"" << bad << "\"");
}

BOOST_AUTO_TEST_SUITE_END()
