// Table tests for br::gtid_set: real server strings, normalisation, exact error positions, errant check.
#include <boost/test/unit_test.hpp>

#include "messages/gtid_set.hpp"
#include "messages/type_ids.hpp"

#include <caf/all.hpp>

#include <limits>
#include <stdexcept>
#include <ostream>
#include <string>
#include <vector>

namespace br {
// Lets Boost.Test print sets in failure messages (found by ADL); static keeps it per file.
[[maybe_unused]] static std::ostream& boost_test_print_type(std::ostream& os, const gtid_set& s) {
  return os << "{" << s.to_compact_string() << "}";
}
}  // namespace br

namespace {

using br::gtid_set;

// Two server_uuids as a MySQL 9.7 sandbox printed them (see mysql-9.7-sandbox-notes.md).
const std::string a = "bd414d9a-e603-11f1-821b-02fc00000001";
const std::string b = "bf5d5d75-e603-11f1-aa37-02fc00000001";
const std::string c = "0e2c6f1a-7b3d-4c5e-9f80-1a2b3c4d5e6f";

gtid_set must_parse(const std::string& text) {
  br::gtid_parse_error err;
  auto r = gtid_set::parse(text, &err);
  BOOST_REQUIRE_MESSAGE(r.has_value(), "parse failed for [" << text << "]: " << err.to_string());
  return *r;
}

using interval_list = std::vector<gtid_set::interval>;

}  // namespace

BOOST_AUTO_TEST_SUITE(gtid_set_table)

BOOST_AUTO_TEST_CASE(empty_inputs_are_the_empty_set) {
  for (std::string text : {"", " ", "\n", " \t\r\n "}) {
    auto s = must_parse(text);
    BOOST_TEST(s.empty());
    BOOST_TEST(s.count() == 0u);
    BOOST_TEST(s.to_string() == "");
    BOOST_TEST(s.to_compact_string() == "");
  }
  BOOST_TEST(gtid_set{}.empty());
}

BOOST_AUTO_TEST_CASE(real_gtid_executed_two_uuids) {
  const std::string text = a + ":1-5,\n" + b + ":1-2";
  auto s = must_parse(text);
  BOOST_TEST(s.count() == 7u);
  BOOST_REQUIRE_EQUAL(s.streams().size(), 2u);
  BOOST_TEST((s.streams().at({a, ""}) == interval_list{{1, 5}}));
  BOOST_TEST((s.streams().at({b, ""}) == interval_list{{1, 2}}));
  BOOST_TEST(s.to_string() == text);
  BOOST_TEST(s.to_compact_string() == a + ":1-5," + b + ":1-2");
}

BOOST_AUTO_TEST_CASE(real_tagged_gtid) {
  const std::string text = b + ":1-2:optest:1";
  auto s = must_parse(text);
  BOOST_TEST(s.count() == 3u);
  BOOST_TEST((s.streams().at({b, ""}) == interval_list{{1, 2}}));
  BOOST_TEST((s.streams().at({b, "optest"}) == interval_list{{1, 1}}));
  BOOST_TEST(s.to_string() == text);
}

BOOST_AUTO_TEST_CASE(tagged_multi_tag_and_tag_only) {
  auto s = must_parse(a + ":1-5:tag:1-3:othertag:7");
  BOOST_TEST(s.count() == 9u);
  BOOST_TEST((s.streams().at({a, "tag"}) == interval_list{{1, 3}}));
  BOOST_TEST((s.streams().at({a, "othertag"}) == interval_list{{7, 7}}));
  // Tags print sorted, after the untagged intervals.
  BOOST_TEST(s.to_string() == a + ":1-5:othertag:7:tag:1-3");

  auto only_tagged = must_parse(b + ":optest:1-3");
  BOOST_TEST(only_tagged.to_string() == b + ":optest:1-3");
  BOOST_TEST(only_tagged.streams().count({b, ""}) == 0u);
}

BOOST_AUTO_TEST_CASE(several_uuids_sorted_and_joined_like_the_server) {
  auto s = must_parse(b + ":3," + c + ":10-20:x:5," + a + ":1-5:7-9");
  BOOST_TEST(s.to_string() == c + ":10-20:x:5,\n" + a + ":1-5:7-9,\n" + b + ":3");
  BOOST_TEST(s.to_compact_string() == c + ":10-20:x:5," + a + ":1-5:7-9," + b + ":3");
  BOOST_TEST(s.count() == 11u + 1u + 8u + 1u);
}

BOOST_AUTO_TEST_CASE(upper_case_is_normalised) {
  auto s = must_parse("BD414D9A-E603-11F1-821B-02FC00000001:1-5:OpTest:2");
  BOOST_TEST(s.to_string() == a + ":1-5:optest:2");
  BOOST_TEST(s == must_parse(a + ":1-5:optest:2"));
}

BOOST_AUTO_TEST_CASE(unsorted_overlapping_adjacent_input_is_merged) {
  auto s = must_parse(a + ":7-9:1-3:4:2-5:20," + a + ":10:15-16, " + a + ":t:3:t:1-2");
  // 1-3 + 4 + 2-5 -> 1-5; 7-9 + 10 -> 7-10 (adjacent merges); tag t: 1-2 + 3 -> 1-3.
  BOOST_TEST(s.to_string() == a + ":1-5:7-10:15-16:20:t:1-3");
  BOOST_TEST(s.count() == 5u + 4u + 2u + 1u + 3u);
}

BOOST_AUTO_TEST_CASE(whitespace_between_elements) {
  auto s = must_parse("  " + a + " : 1 - 5 : tag : 3 ,\n\t" + b + ":2\n");
  BOOST_TEST(s.to_compact_string() == a + ":1-5:tag:3," + b + ":2");
}

BOOST_AUTO_TEST_CASE(single_transaction_prints_without_range) {
  auto s = must_parse(a + ":7-7");
  BOOST_TEST(s.to_string() == a + ":7");
}

BOOST_AUTO_TEST_CASE(normalised_server_strings_round_trip_exactly) {
  const std::vector<std::string> texts = {
      a + ":1-5,\n" + b + ":1-2",
      b + ":1-2:optest:1",
      a + ":1",
      a + ":1-3:5:7-9223372036854775806",
      a + ":_:1:a_b9:2-3:" + std::string(32, 'z') + ":4",
      c + ":1-100,\n" + a + ":1-5:tag:1-3,\n" + b + ":optest:1-2:zz:9",
  };
  for (const auto& t : texts) {
    auto s = must_parse(t);
    BOOST_TEST(s.to_string() == t);
    BOOST_TEST(must_parse(s.to_compact_string()) == s);
  }
}

BOOST_AUTO_TEST_CASE(huge_intervals_are_fast_and_counted_exactly) {
  auto s = must_parse(a + ":1-9223372036854775806");
  BOOST_TEST(s.count() == 9223372036854775806ull);
  auto t = must_parse(a + ":2-9223372036854775805");
  BOOST_TEST(s.contains(t));
  BOOST_TEST(!t.contains(s));
  BOOST_TEST(s.subtract(t).to_string() == a + ":1:9223372036854775806");
  BOOST_TEST(s.subtract(t).count() == 2u);
  BOOST_TEST(s.intersect(t) == t);
  BOOST_TEST(s.unite(t) == s);
  // Two full streams: 2 * (2^63 - 2) = 2^64 - 4 still fits.
  auto two = must_parse(a + ":1-9223372036854775806," + b + ":1-9223372036854775806");
  BOOST_TEST(two.count() == std::numeric_limits<uint64_t>::max() - 3);
  // Three do not: count saturates.
  auto three = two.unite(must_parse(c + ":1-9223372036854775806"));
  BOOST_TEST(three.count() == std::numeric_limits<uint64_t>::max());
}

BOOST_AUTO_TEST_CASE(add_merges_and_validates) {
  gtid_set s;
  s.add(a, "", 5, 5);
  s.add(a, "", 1, 3);
  s.add(a, "", 4, 4);  // joins 1-3 and 5
  s.add(a, "", 10, 12);
  s.add("BD414D9A-E603-11F1-821B-02FC00000001", "OpTest", 2, 2);
  s.add(a, "", 7, 11);  // overlaps 10-12
  BOOST_TEST(s.to_string() == a + ":1-5:7-12:optest:2");
  BOOST_TEST(s.count() == 5u + 6u + 1u);
  s.add(a, "", 1, gtid_set::max_gno);
  BOOST_TEST(s.to_string() == a + ":1-9223372036854775806:optest:2");

  BOOST_CHECK_THROW(s.add(a, "", 0, 1), std::invalid_argument);
  BOOST_CHECK_THROW(s.add(a, "", 5, 4), std::invalid_argument);
  BOOST_CHECK_THROW(s.add(a, "", 1, gtid_set::max_gno + 1), std::invalid_argument);
  BOOST_CHECK_THROW(s.add("not-a-uuid", "", 1, 1), std::invalid_argument);
  BOOST_CHECK_THROW(s.add(a, "9tag", 1, 1), std::invalid_argument);
  BOOST_CHECK_THROW(s.add(a, std::string(33, 't'), 1, 1), std::invalid_argument);
  BOOST_TEST(s.to_string() == a + ":1-9223372036854775806:optest:2");
}

namespace {

struct error_case {
  std::string text;
  size_t position;
  std::string message_part;
};

}  // namespace

BOOST_AUTO_TEST_CASE(malformed_inputs_report_exact_position) {
  // a is 36 bytes, so a + ":" puts the first interval byte at 37.
  const std::vector<error_case> cases = {
      {a + "1-5", 36, "expected ':' after uuid"},
      {a + " 1-5", 37, "expected ':' after uuid"},
      {a + ":0", 37, "interval start 0 is invalid"},
      {a + ":0-5", 37, "interval start 0 is invalid"},
      {a + ":5-3", 39, "interval end 3 is before start 5"},
      {a + ":1-5:-tag:1", 41, "expected interval or tag"},
      {a + "::1", 37, "expected interval or tag"},
      {a + ":", 37, "expected interval or tag"},
      {"bd414d9a-e603-11f1-821b-02fc0000000:1", 35, "expected hex digit"},
      {"bd414d9ae603-11f1-821b-02fc00000001:1", 8, "expected '-'"},
      {"xd414d9a-e603-11f1-821b-02fc00000001:1", 0, "expected hex digit"},
      {"bd414d9a-e603", 13, "unexpected end of input in uuid"},
      {"  bd414d9a-e6g3-11f1-821b-02fc00000001:1", 13, "expected hex digit"},
      {a + ":1-5,", 41, "expected uuid after ','"},
      {a + ":1-5,\n" + b + ":1,,", 81, "expected hex digit"},
      {a + ":1-5:tag", 44, "expected ':' and an interval after tag"},
      {a + ":tag:othertag:1", 41, "expected interval after tag 'tag'"},
      {a + ":" + std::string(33, 'a') + ":1", 69, "invalid tag"},
      {a + ":ta-g:1", 39, "invalid tag"},
      {a + ":1:t\xc3\xa9:1", 40, "invalid tag"},
      {a + ":\xc3\xa9", 37, "expected interval or tag"},
      {a + ":1-9223372036854775807", 39, "exceeds the maximum"},
      {a + ":99999999999999999999999", 37, "exceeds the maximum"},
      {a + ":1-", 39, "expected interval end"},
      {a + ":1-x", 39, "expected interval end"},
      {a + ":1-5 x", 41, "expected ':', ',' or end of input"},
      {a + ":1 5", 39, "expected ':', ',' or end of input"},
      {a + ":12abc", 39, "expected ':', ',' or end of input"},
      {a + ":007", 37, "leading zero"},
      {a + ":1;" + b + ":1", 38, "expected ':', ',' or end of input"},
  };
  for (const auto& tc : cases) {
    br::gtid_parse_error err;
    err.position = 9999;
    auto r = gtid_set::parse(tc.text, &err);
    BOOST_TEST_CONTEXT("input [" << tc.text << "]") {
      BOOST_TEST(!r.has_value());
      BOOST_TEST(err.position == tc.position);
      BOOST_TEST(err.message.find(tc.message_part) != std::string::npos, "message: " << err.message);
    }
  }
  // The error pointer is optional.
  BOOST_TEST(!gtid_set::parse(a + ":0").has_value());
}

BOOST_AUTO_TEST_CASE(error_to_string_and_exact_messages) {
  br::gtid_parse_error err;
  BOOST_TEST(!gtid_set::parse(a + ":5-3", &err).has_value());
  BOOST_TEST(err.message == "interval end 3 is before start 5");
  BOOST_TEST(err.to_string() == "at byte 39: interval end 3 is before start 5");
  BOOST_TEST(!gtid_set::parse(a + ":0", &err).has_value());
  BOOST_TEST(err.to_string() == "at byte 37: interval start 0 is invalid");
  BOOST_TEST(!gtid_set::parse(a + "1", &err).has_value());
  BOOST_TEST(err.to_string() == "at byte 36: expected ':' after uuid");
}

BOOST_AUTO_TEST_CASE(boundary_gno_accepted) {
  auto s = must_parse(a + ":9223372036854775806");
  BOOST_TEST(s.count() == 1u);
  BOOST_TEST(s.to_string() == a + ":9223372036854775806");
}

// The operator's errant-transaction check: a replica may only hold transactions the primary
// has; anything else (written directly on the replica) must be reported before promotion.
BOOST_AUTO_TEST_CASE(errant_transactions_are_the_difference) {
  auto primary = must_parse(a + ":1-100,\n" + b + ":1-3");
  auto lagging = must_parse(a + ":1-90,\n" + b + ":1-3");
  BOOST_TEST(primary.contains(lagging));
  BOOST_TEST(lagging.subset_of(primary));
  BOOST_TEST(lagging.subtract(primary).empty());
  BOOST_TEST(primary.subtract(lagging).to_string() == a + ":91-100");

  auto errant = must_parse(a + ":1-90,\n" + b + ":1-5:optest:1,\n" + c + ":1");
  BOOST_TEST(!primary.contains(errant));
  BOOST_TEST(!errant.subset_of(primary));
  auto diff = errant.subtract(primary);
  BOOST_TEST(diff.to_string() == c + ":1,\n" + b + ":4-5:optest:1");
  BOOST_TEST(diff.count() == 4u);
  // Once the primary has them (e.g. re-cloned), nothing is errant.
  BOOST_TEST(primary.unite(diff).contains(errant));
}

BOOST_AUTO_TEST_CASE(caf_serialization_round_trip) {
  caf::actor_system_config cfg;
  br::add_message_types(cfg);
  BOOST_TEST(std::string(caf::type_name<br::gtid_set>::value) == "br::gtid_set");
  auto x = must_parse(a + ":1-5:7:optest:1-3,\n" + b + ":9223372036854775806");
  std::vector<char> buf;
  caf::binary_serializer sink{nullptr, buf};
  BOOST_REQUIRE(!sink(x));
  gtid_set y;
  caf::binary_deserializer source{nullptr, buf};
  BOOST_REQUIRE(!source(y));
  BOOST_TEST(x == y);
  BOOST_TEST(y.to_string() == x.to_string());
  auto msg = caf::make_message(x);
  BOOST_TEST(msg.match_element<gtid_set>(0));
  BOOST_TEST(msg.get_as<gtid_set>(0) == x);
}

BOOST_AUTO_TEST_SUITE_END()
