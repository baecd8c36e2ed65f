// MySQL GTID sets (including tagged GTIDs, MySQL 8.3+): parsing, exact formatting, set algebra.
#pragma once

#include <caf/meta/type_name.hpp>

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace br {

/// Where and why a GTID text failed to parse. `position` is a 0-based byte offset into the input.
struct gtid_parse_error {
  size_t position = 0;
  std::string message;
  std::string to_string() const;  // "at byte N: message"
};

/// A set of GTIDs. Identity of a transaction stream is (source uuid, tag); tag "" = untagged.
/// Each stream holds disjoint, non-adjacent, sorted, inclusive intervals [first, last], first >= 1.
class gtid_set {
 public:
  using interval = std::pair<uint64_t, uint64_t>;
  using stream_key = std::pair<std::string, std::string>;  // (lowercase uuid, lowercase tag)

  /// Largest transaction number MySQL accepts: the server's GNO_END is INT64_MAX and is
  /// exclusive ("one past the max"), so 2^63-2 is the last valid GNO.
  static constexpr uint64_t max_gno = 9223372036854775806ULL;
  /// Longest tag MySQL accepts (characters).
  static constexpr size_t max_tag_length = 32;

  gtid_set() = default;

  /// Parses the server's text (e.g. @@gtid_executed): "uuid:1-5:tag:1-3,\nuuid2:7", whitespace
  /// (including the server's comma+newline separator) allowed between elements; "" = empty set.
  static std::optional<gtid_set> parse(std::string_view text, gtid_parse_error* err = nullptr);

  /// Normalised server format: streams sorted by uuid, for each uuid the untagged intervals
  /// first, then tags sorted; uuids joined by ",\n" exactly as MySQL prints gtid_executed.
  std::string to_string() const;
  /// Same, joined by "," with no newline (for logs, annotations, status fields).
  std::string to_compact_string() const;

  bool empty() const { return streams_.empty(); }
  /// Number of transactions (saturates at UINT64_MAX).
  uint64_t count() const;

  gtid_set unite(const gtid_set& other) const;
  gtid_set intersect(const gtid_set& other) const;
  gtid_set subtract(const gtid_set& other) const;  // this \ other
  /// True if every transaction of `other` is in this set.
  bool contains(const gtid_set& other) const;
  bool subset_of(const gtid_set& other) const { return other.contains(*this); }
  /// Adds one transaction or an interval. uuid and tag are case-insensitive (stored lowercase);
  /// throws std::invalid_argument for a malformed uuid or tag, first == 0, first > last or
  /// last > max_gno, because such a set could not be printed back in a form MySQL accepts.
  void add(const std::string& uuid, const std::string& tag, uint64_t first, uint64_t last);

  const std::map<stream_key, std::vector<interval>>& streams() const { return streams_; }

  friend bool operator==(const gtid_set& a, const gtid_set& b) { return a.streams_ == b.streams_; }
  friend bool operator!=(const gtid_set& a, const gtid_set& b) { return !(a == b); }

  /// CAF serialization of the stream map as is (CAF 0.17 handles map/pair/vector). Values are
  /// trusted: a deserialized set is not re-validated, so only peers running this code send it.
  template <class Inspector>
  friend typename Inspector::result_type inspect(Inspector& f, gtid_set& x) {
    return f(caf::meta::type_name("gtid_set"), x.streams_);
  }

 private:
  std::map<stream_key, std::vector<interval>> streams_;
};

}  // namespace br
