// Binlog file summary on synthetic v4 binlogs built here byte by byte (the real-server check is
// integration_binlog_archiver): Previous_gtids in both encodings, times, sealing, every error.
#include <boost/test/unit_test.hpp>

#include <string>

#include "io/binlog/binlog_file.hpp"

using namespace br;
using namespace br::binlog;

namespace {

const std::string uuid_a = "3e11fa47-71ca-11e1-9e33-c80aa9429562";
const std::string uuid_b = "c0ffee00-0000-4000-8000-000000000001";

void put(std::string& out, uint64_t v, size_t n) {
  for (size_t i = 0; i < n; ++i) out += static_cast<char>((v >> (8 * i)) & 0xff);
}

std::string uuid_bytes(const std::string& u) {
  std::string out;
  for (size_t i = 0; i < u.size(); ++i) {
    if (u[i] == '-') continue;
    out += static_cast<char>(std::stoi(u.substr(i, 2), nullptr, 16));
    ++i;
  }
  return out;
}

struct stream {
  std::string uuid, tag;
  std::vector<std::pair<uint64_t, uint64_t>> intervals;  // inclusive
};

/// Gtid_set::encode: untagged unless a stream has a tag. `wide_tag_length` writes each tag length
/// in the 2-byte variable-length form (valid, not minimal).
std::string encode(const std::vector<stream>& streams, bool tagged, bool wide_tag_length = false) {
  std::string out;
  uint64_t n = streams.size();
  put(out, tagged ? (uint64_t{1} << 56) | (n << 8) | 1 : n, 8);
  for (const auto& s : streams) {
    out += uuid_bytes(s.uuid);
    if (tagged) {
      if (wide_tag_length)
        put(out, (s.tag.size() << 2) | 1, 2);
      else
        put(out, s.tag.size() << 1, 1);
      out += s.tag;
    }
    put(out, s.intervals.size(), 8);
    for (auto [a, b] : s.intervals) {
      put(out, a, 8);
      put(out, b + 1, 8);
    }
  }
  return out;
}

struct binlog_builder {
  bool crc = true;
  std::string bytes = std::string("\xfe" "bin", 4);

  binlog_builder& event(uint8_t type, uint32_t when, const std::string& body) {
    std::string e;
    put(e, when, 4);
    e += static_cast<char>(type);
    put(e, 1, 4);  // server id
    put(e, 19 + body.size() + (crc ? 4 : 0), 4);
    put(e, bytes.size() + 19 + body.size() + (crc ? 4 : 0), 4);  // end log pos
    put(e, 0, 2);
    e += body;
    if (crc) put(e, 0xdeadbeef, 4);  // not verified by the reader
    bytes += e;
    return *this;
  }
  binlog_builder& fde(uint32_t when) {
    std::string b;
    put(b, 4, 2);
    b += std::string("9.7.0") + std::string(45, '\0');
    put(b, when, 4);
    b += static_cast<char>(19);
    b += std::string(41, '\x0a');  // post-header lengths
    b[2 + 50 + 4 + 1 + query_event - 1] = 13;  // the Query event's, as MySQL writes it
    b += static_cast<char>(crc ? 1 : 0);
    // The FDE carries the algorithm byte and then its own checksum, which event() appends.
    std::string e;
    put(e, when, 4);
    e += static_cast<char>(format_description_event);
    put(e, 1, 4);
    put(e, 19 + b.size() + 4, 4);
    put(e, bytes.size() + 19 + b.size() + 4, 4);
    put(e, 0, 2);
    bytes += e + b;
    put(bytes, 0x12345678, 4);
    return *this;
  }
};

binlog_builder sealed_file(const std::string& previous) {
  binlog_builder b;
  b.fde(1000).event(previous_gtids_event, 1000, previous);
  b.event(gtid_event, 1005, std::string(42, '\0')).event(2, 1005, std::string(30, 'q'));
  b.event(gtid_tagged_event, 1010, std::string(50, '\0')).event(2, 1009, std::string(30, 'q'));
  b.event(rotate_event, 1012, std::string(8, '\0') + "binlog.000002");
  return b;
}

/// A GTID event body for uuid:gno (flags, sid, gno, then the rest as zeros).
std::string gtid_body(const std::string& uuid, uint64_t gno) {
  std::string b(1, '\0');
  b += uuid_bytes(uuid);
  put(b, gno, 8);
  return b + std::string(42 - b.size(), '\0');
}

/// A Query event body: the 13-byte post-header, `status` as status variables, the db and its NUL.
std::string query_body(const std::string& text, const std::string& db = "", const std::string& status = "") {
  std::string b;
  put(b, 7, 4);  // thread id
  put(b, 0, 4);  // exec time
  b += static_cast<char>(db.size());
  put(b, 0, 2);  // error code
  put(b, status.size(), 2);
  return b + status + db + std::string(1, '\0') + text;
}

}  // namespace

BOOST_AUTO_TEST_SUITE(binlog_file)

BOOST_AUTO_TEST_CASE(gtids_of_picked_statements) {
  binlog_builder b;
  b.fde(1000).event(previous_gtids_event, 1000, encode({}, false));
  b.event(gtid_event, 1001, gtid_body(uuid_a, 5)).event(query_event, 1001, query_body("CREATE USER 'x'@'%'", "", "\x01\x02\x03"));
  b.event(gtid_event, 1002, gtid_body(uuid_a, 6)).event(query_event, 1002, query_body("BEGIN", "appdb"));
  b.event(query_event, 1002, query_body("CREATE USER 'in'@'%' (not a transaction's first statement)"));
  b.event(gtid_event, 1003, gtid_body(uuid_b, 9)).event(query_event, 1003, query_body("GRANT SELECT ON appdb.* TO 'x'@'%'", "appdb"));
  b.event(gtid_event, 1004, gtid_body(uuid_a, 7)).event(query_event, 1004, query_body(std::string(1000, 'C')));
  b.event(rotate_event, 1005, std::string(8, '\0') + "binlog.000002");
  size_t longest = 0;
  auto pick = [&](std::string_view text) {
    longest = std::max(longest, text.size());
    return text.rfind("CREATE USER", 0) == 0 || text.rfind("GRANT", 0) == 0;
  };
  std::string err;
  auto set = gtids_of_statements_in(b.bytes, pick, err);
  BOOST_TEST_REQUIRE(set.has_value(), err);
  BOOST_TEST(set->to_compact_string() == uuid_a + ":5," + uuid_b + ":9");
  BOOST_TEST(longest == 256u);  // only a statement's head is read

  // Refused: a picked statement under a tagged GTID (not decoded), a Query whose lengths exceed it.
  binlog_builder tagged;
  tagged.fde(1000).event(previous_gtids_event, 1000, encode({}, false));
  tagged.event(gtid_tagged_event, 1001, std::string(50, '\0')).event(query_event, 1001, query_body("CREATE USER 'x'"));
  BOOST_TEST(!gtids_of_statements_in(tagged.bytes, pick, err));
  BOOST_TEST(err.find("tagged GTID") != std::string::npos, err);
  binlog_builder lying;
  lying.fde(1000).event(previous_gtids_event, 1000, encode({}, false));
  lying.event(gtid_event, 1001, gtid_body(uuid_a, 5)).event(query_event, 1001, query_body("x", std::string(200, 'd')).substr(0, 20));
  BOOST_TEST(!gtids_of_statements_in(lying.bytes, pick, err));
  BOOST_TEST(err.find("exceed") != std::string::npos, err);
  binlog_builder zero;
  zero.fde(1000).event(previous_gtids_event, 1000, encode({}, false));
  zero.event(gtid_event, 1001, gtid_body(uuid_a, 0)).event(query_event, 1001, query_body("CREATE USER 'x'"));
  BOOST_TEST(!gtids_of_statements_in(zero.bytes, pick, err));
  BOOST_TEST(err.find("out of range") != std::string::npos, err);
  BOOST_TEST(!gtids_of_statements_in("not a binlog", pick, err));
}

BOOST_AUTO_TEST_CASE(previous_gtids_untagged_decodes_to_the_server_text) {
  auto body = encode({{uuid_a, "", {{1, 5}, {7, 9}}}, {uuid_b, "", {{1, 1}}}}, false);
  std::string err;
  auto set = decode_previous_gtids(body, &err);
  BOOST_TEST_REQUIRE(set.has_value(), err);
  BOOST_TEST(set->to_compact_string() == uuid_a + ":1-5:7-9," + uuid_b + ":1");
}

BOOST_AUTO_TEST_CASE(previous_gtids_tagged_keeps_tags_and_untagged_streams) {
  auto body = encode({{uuid_a, "", {{1, 3}}}, {uuid_a, "nightly", {{1, 2}}}}, true);
  std::string err;
  auto set = decode_previous_gtids(body, &err);
  BOOST_TEST_REQUIRE(set.has_value(), err);
  BOOST_TEST(set->to_compact_string() == uuid_a + ":1-3:nightly:1-2");
  // A longer (valid) variable-length encoding of the tag length decodes the same.
  auto wide = decode_previous_gtids(encode({{uuid_a, "", {{1, 3}}}, {uuid_a, "nightly", {{1, 2}}}}, true, true));
  BOOST_TEST_REQUIRE(wide.has_value());
  BOOST_TEST((*wide == *set));
}

BOOST_AUTO_TEST_CASE(empty_previous_gtids_is_the_empty_set) {
  auto set = decode_previous_gtids(encode({}, false));
  BOOST_TEST_REQUIRE(set.has_value());
  BOOST_TEST(set->empty());
}

BOOST_AUTO_TEST_CASE(malformed_previous_gtids_bodies_are_refused_with_a_position) {
  auto good = encode({{uuid_a, "", {{1, 5}}}}, false);
  std::string err;
  BOOST_TEST(!decode_previous_gtids(good.substr(0, good.size() - 1), &err));
  BOOST_TEST(err.find("at body byte") != std::string::npos);
  BOOST_TEST(!decode_previous_gtids(good + "x", &err));
  BOOST_TEST(err.find("after the last stream") != std::string::npos);
  std::string unknown = good;
  unknown[7] = 2;  // format 2 does not exist
  BOOST_TEST(!decode_previous_gtids(unknown, &err));
  BOOST_TEST(err.find("unknown GTID set format") != std::string::npos);
  BOOST_TEST(!decode_previous_gtids(encode({{uuid_a, "", {{5, 4}}}}, false), &err));  // end < start
  BOOST_TEST(!decode_previous_gtids(std::string(7, '\0'), &err));
  // Interval count far beyond the bytes present (no allocation, no overread).
  std::string huge;
  put(huge, 1, 8);
  huge += uuid_bytes(uuid_a);
  put(huge, uint64_t{1} << 60, 8);
  BOOST_TEST(!decode_previous_gtids(huge, &err));
  BOOST_TEST(err.find("interval count") != std::string::npos);
  // A 33-character tag is longer than MySQL allows.
  BOOST_TEST(!decode_previous_gtids(encode({{uuid_a, std::string(33, 't'), {{1, 1}}}}, true), &err));
}

BOOST_AUTO_TEST_CASE(summary_of_a_sealed_file) {
  auto b = sealed_file(encode({{uuid_a, "", {{1, 5}}}}, false));
  auto r = summarize_binlog(b.bytes);
  BOOST_TEST_REQUIRE(r.summary.has_value(), r.error);
  BOOST_TEST(r.summary->first_event_time == 1000);
  BOOST_TEST(r.summary->last_event_time == 1012);  // the latest timestamp, not the last event's
  BOOST_TEST(r.summary->previous_gtids.to_compact_string() == uuid_a + ":1-5");
  BOOST_TEST(r.summary->transactions == 2u);
  BOOST_TEST(r.summary->events == 7u);
  BOOST_TEST(r.summary->ends_with_rotate);
  BOOST_TEST(r.summary->size == b.bytes.size());
}

BOOST_AUTO_TEST_CASE(files_without_checksums_read_the_same) {
  binlog_builder b;
  b.crc = false;
  b.fde(50).event(previous_gtids_event, 50, encode({{uuid_b, "", {{1, 2}}}}, false));
  auto r = summarize_binlog(b.bytes);
  BOOST_TEST_REQUIRE(r.summary.has_value(), r.error);
  BOOST_TEST(r.summary->previous_gtids.to_compact_string() == uuid_b + ":1-2");
  BOOST_TEST(!r.summary->ends_with_rotate);  // the file being written
}

BOOST_AUTO_TEST_CASE(broken_files_are_refused_with_the_offset) {
  auto ok = sealed_file(encode({}, false)).bytes;
  BOOST_TEST(summarize_binlog(ok.substr(0, ok.size() - 3)).error.find("truncated event") != std::string::npos);
  BOOST_TEST(summarize_binlog(ok.substr(0, ok.size() - 40)).error.find("at byte") == 0u);
  std::string bad = ok;
  bad[0] = 'x';
  BOOST_TEST(summarize_binlog(bad).error.find("bad magic") != std::string::npos);
  bad = ok;
  bad[0] = '\xfd';
  BOOST_TEST(summarize_binlog(bad).error.find("encrypted") != std::string::npos);
  BOOST_TEST(summarize_binlog("\xfe" "b").error.find("shorter") != std::string::npos);
  binlog_builder no_prev;
  no_prev.fde(1).event(rotate_event, 2, std::string(8, '\0') + "x");
  BOOST_TEST(summarize_binlog(no_prev.bytes).error.find("no Previous_gtids") != std::string::npos);
  binlog_builder no_fde;
  no_fde.event(previous_gtids_event, 1, encode({}, false));
  BOOST_TEST(summarize_binlog(no_fde.bytes).error.find("not Format_description") != std::string::npos);
  std::string tiny = ok;
  tiny[4 + 9] = 5;  // first event length below the header size
  tiny[4 + 10] = tiny[4 + 11] = tiny[4 + 12] = 0;
  BOOST_TEST(summarize_binlog(tiny).error.find("below 19") != std::string::npos);
}

BOOST_AUTO_TEST_SUITE_END()
