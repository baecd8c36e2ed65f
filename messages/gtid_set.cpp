// br::gtid_set: parser for MySQL GTID text, MySQL-exact formatting, interval set algebra.
#include "messages/gtid_set.hpp"

#include <algorithm>
#include <cstdio>
#include <limits>
#include <stdexcept>

namespace br {

namespace {

using interval = gtid_set::interval;
using interval_list = std::vector<interval>;

bool is_space(char c) {
  return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v';
}
bool is_digit(char c) { return c >= '0' && c <= '9'; }
char to_lower(char c) { return (c >= 'A' && c <= 'Z') ? static_cast<char>(c - 'A' + 'a') : c; }
bool is_hex(char c) {
  c = to_lower(c);
  return is_digit(c) || (c >= 'a' && c <= 'f');
}
bool is_tag_start(char c) {
  c = to_lower(c);
  return (c >= 'a' && c <= 'z') || c == '_';
}
bool is_tag_char(char c) { return is_tag_start(c) || is_digit(c); }
bool is_uuid_dash_position(size_t i) { return i == 8 || i == 13 || i == 18 || i == 23; }
constexpr size_t uuid_length = 36;

// Renders one input byte for an error message; raw control or non-ASCII bytes would make the
// message itself unreadable (or break a log line), so those are shown as \xNN.
std::string describe_char(char c) {
  auto u = static_cast<unsigned char>(c);
  if (u >= 0x20 && u < 0x7f) return std::string{'\'', c, '\''};
  char buf[8];
  std::snprintf(buf, sizeof(buf), "\\x%02X", u);
  return buf;
}

bool valid_uuid(std::string_view s) {
  if (s.size() != uuid_length) return false;
  for (size_t i = 0; i < s.size(); ++i)
    if (is_uuid_dash_position(i) ? s[i] != '-' : !is_hex(s[i])) return false;
  return true;
}

bool valid_tag(std::string_view s) {
  if (s.empty() || s.size() > gtid_set::max_tag_length || !is_tag_start(s[0])) return false;
  return std::all_of(s.begin(), s.end(), is_tag_char);
}

std::string lowercase(std::string_view s) {
  std::string out(s);
  for (auto& c : out) c = to_lower(c);
  return out;
}

// Sorts and coalesces overlapping or adjacent intervals, restoring the class invariant.
// Values never exceed max_gno, so `second + 1` cannot overflow.
void normalise(interval_list& v) {
  std::sort(v.begin(), v.end());
  size_t out = 0;
  for (const auto& iv : v) {
    if (out > 0 && iv.first <= v[out - 1].second + 1)
      v[out - 1].second = std::max(v[out - 1].second, iv.second);
    else
      v[out++] = iv;
  }
  v.resize(out);
}

// Linear merge of two normalised lists.
interval_list unite_lists(const interval_list& a, const interval_list& b) {
  interval_list out;
  out.reserve(a.size() + b.size());
  size_t i = 0;
  size_t j = 0;
  while (i < a.size() || j < b.size()) {
    const interval& next = (j == b.size() || (i < a.size() && a[i].first <= b[j].first)) ? a[i++] : b[j++];
    if (!out.empty() && next.first <= out.back().second + 1)
      out.back().second = std::max(out.back().second, next.second);
    else
      out.push_back(next);
  }
  return out;
}

interval_list intersect_lists(const interval_list& a, const interval_list& b) {
  interval_list out;
  size_t i = 0;
  size_t j = 0;
  while (i < a.size() && j < b.size()) {
    uint64_t lo = std::max(a[i].first, b[j].first);
    uint64_t hi = std::min(a[i].second, b[j].second);
    if (lo <= hi) out.emplace_back(lo, hi);
    // The interval ending first cannot overlap anything further in the other list.
    if (a[i].second < b[j].second)
      ++i;
    else
      ++j;
  }
  return out;
}

// a \ b. Each interval of b may cut several intervals of a, so j only advances past
// intervals of b that end before the current piece of a.
interval_list subtract_lists(const interval_list& a, const interval_list& b) {
  interval_list out;
  size_t j = 0;
  for (const auto& [first, last] : a) {
    uint64_t cur = first;
    while (j < b.size() && b[j].second < cur) ++j;
    bool consumed = false;
    size_t k = j;
    for (; k < b.size() && b[k].first <= last; ++k) {
      if (b[k].first > cur) out.emplace_back(cur, b[k].first - 1);
      if (b[k].second >= last) {
        consumed = true;
        break;
      }
      cur = b[k].second + 1;
    }
    if (!consumed) out.emplace_back(cur, last);
    j = k;
  }
  return out;
}

// True if every interval of b lies inside one interval of a (a is non-adjacent, so an
// interval of b that is covered at all is covered by exactly one interval of a).
bool contains_list(const interval_list& a, const interval_list& b) {
  size_t i = 0;
  for (const auto& [first, last] : b) {
    while (i < a.size() && a[i].second < first) ++i;
    if (i == a.size() || a[i].first > first || a[i].second < last) return false;
  }
  return true;
}

uint64_t saturating_add(uint64_t a, uint64_t b) {
  return a > std::numeric_limits<uint64_t>::max() - b ? std::numeric_limits<uint64_t>::max() : a + b;
}

// Recursive-descent parser over the whole text; every failure records the byte offset of the
// first character that cannot belong to a valid GTID set.
class parser {
 public:
  parser(std::string_view text, gtid_parse_error* err) : s_(text), err_(err) {}

  bool run(std::map<gtid_set::stream_key, interval_list>& out) {
    skip_space();
    if (at_end()) return true;
    for (;;) {
      std::string uuid;
      if (!parse_uuid(uuid)) return false;
      skip_space();
      if (at_end() || s_[p_] != ':') return fail(p_, "expected ':' after uuid");
      std::string tag;  // current tag; intervals belong to the most recent tag ("" = untagged)
      bool tag_pending = false;  // a tag was read and still needs at least one interval
      while (!at_end() && s_[p_] == ':') {
        ++p_;
        skip_space();
        if (!at_end() && is_digit(s_[p_])) {
          interval iv;
          if (!parse_interval(iv)) return false;
          out[{uuid, tag}].push_back(iv);
          tag_pending = false;
        } else if (!at_end() && is_tag_start(s_[p_])) {
          if (tag_pending) return fail(p_, "expected interval after tag '" + tag + "'");
          if (!parse_tag(tag)) return false;
          tag_pending = true;
        } else {
          return fail(p_, at_end() ? "expected interval or tag after ':', got end of input"
                                   : "expected interval or tag after ':', got " + describe_char(s_[p_]));
        }
        skip_space();
      }
      if (tag_pending) return fail(p_, "expected ':' and an interval after tag '" + tag + "'");
      if (at_end()) return true;
      if (s_[p_] != ',') return fail(p_, "expected ':', ',' or end of input, got " + describe_char(s_[p_]));
      ++p_;
      skip_space();
      // Stricter than mysqld (which skips empty elements): a dangling ',' usually means a
      // truncated or concatenated value, which is worth reporting.
      if (at_end()) return fail(p_, "expected uuid after ','");
    }
  }

 private:
  bool at_end() const { return p_ >= s_.size(); }
  void skip_space() {
    while (!at_end() && is_space(s_[p_])) ++p_;
  }
  bool fail(size_t pos, std::string message) {
    if (err_) {
      err_->position = pos;
      err_->message = std::move(message);
    }
    return false;
  }

  bool parse_uuid(std::string& uuid) {
    uuid.reserve(uuid_length);
    for (size_t i = 0; i < uuid_length; ++i, ++p_) {
      if (at_end()) return fail(p_, "unexpected end of input in uuid");
      char c = s_[p_];
      if (is_uuid_dash_position(i)) {
        if (c != '-') return fail(p_, "invalid uuid: expected '-', got " + describe_char(c));
      } else if (!is_hex(c)) {
        return fail(p_, "invalid uuid: expected hex digit, got " + describe_char(c));
      }
      uuid.push_back(to_lower(c));
    }
    return true;
  }

  bool parse_tag(std::string& tag) {
    size_t start = p_;
    while (!at_end() && is_tag_char(s_[p_])) ++p_;
    if (p_ - start > gtid_set::max_tag_length)
      return fail(start + gtid_set::max_tag_length, "invalid tag: longer than 32 characters");
    // A tag must end at a separator; "ab-c" or "ab.c" is a bad tag, not a tag and garbage.
    if (!at_end() && !is_space(s_[p_]) && s_[p_] != ':' && s_[p_] != ',')
      return fail(p_, "invalid tag: character " + describe_char(s_[p_]) + " not allowed");
    tag = lowercase(s_.substr(start, p_ - start));
    return true;
  }

  // Decimal only: mysqld reads numbers with strtoll base 0, so "010" would be octal 8 there;
  // rejecting leading zeros avoids silently disagreeing with the server.
  bool parse_number(uint64_t& value) {
    size_t start = p_;
    if (s_[p_] == '0' && p_ + 1 < s_.size() && is_digit(s_[p_ + 1]))
      return fail(p_, "number with leading zero is not allowed");
    value = 0;
    bool overflow = false;
    while (!at_end() && is_digit(s_[p_])) {
      auto d = static_cast<uint64_t>(s_[p_] - '0');
      if (value > (gtid_set::max_gno - d) / 10) overflow = true;
      if (!overflow) value = value * 10 + d;
      ++p_;
    }
    if (overflow) {
      std::string digits(s_.substr(start, std::min<size_t>(p_ - start, 40)));
      if (p_ - start > 40) digits += "...";
      return fail(start, "number " + digits + " exceeds the maximum GNO 9223372036854775806");
    }
    return true;
  }

  bool parse_interval(interval& iv) {
    size_t start_pos = p_;
    if (!parse_number(iv.first)) return false;
    if (iv.first == 0) return fail(start_pos, "interval start 0 is invalid");
    iv.second = iv.first;
    skip_space();
    if (!at_end() && s_[p_] == '-') {
      ++p_;
      skip_space();
      if (at_end() || !is_digit(s_[p_]))
        return fail(p_, at_end() ? "expected interval end after '-', got end of input"
                                 : "expected interval end after '-', got " + describe_char(s_[p_]));
      size_t end_pos = p_;
      if (!parse_number(iv.second)) return false;
      if (iv.second < iv.first)
        return fail(end_pos, "interval end " + std::to_string(iv.second) + " is before start " +
                                 std::to_string(iv.first));
    }
    return true;
  }

  std::string_view s_;
  gtid_parse_error* err_;
  size_t p_ = 0;
};

// Applies a per-stream list operation over the union of both sets' keys. Keys missing on one
// side behave as empty lists; empty results are dropped so equality stays structural.
template <class Op>
std::map<gtid_set::stream_key, interval_list> combine(const std::map<gtid_set::stream_key, interval_list>& a,
                                                      const std::map<gtid_set::stream_key, interval_list>& b,
                                                      Op op) {
  static const interval_list none;
  std::map<gtid_set::stream_key, interval_list> out;
  auto ia = a.begin();
  auto ib = b.begin();
  while (ia != a.end() || ib != b.end()) {
    if (ib == b.end() || (ia != a.end() && ia->first < ib->first)) {
      auto r = op(ia->second, none);
      if (!r.empty()) out.emplace_hint(out.end(), ia->first, std::move(r));
      ++ia;
    } else if (ia == a.end() || ib->first < ia->first) {
      auto r = op(none, ib->second);
      if (!r.empty()) out.emplace_hint(out.end(), ib->first, std::move(r));
      ++ib;
    } else {
      auto r = op(ia->second, ib->second);
      if (!r.empty()) out.emplace_hint(out.end(), ia->first, std::move(r));
      ++ia;
      ++ib;
    }
  }
  return out;
}

}  // namespace

std::string gtid_parse_error::to_string() const {
  return "at byte " + std::to_string(position) + ": " + message;
}

std::optional<gtid_set> gtid_set::parse(std::string_view text, gtid_parse_error* err) {
  std::map<stream_key, interval_list> acc;
  if (!parser{text, err}.run(acc)) return std::nullopt;
  gtid_set result;
  for (auto& [key, list] : acc) normalise(list);
  result.streams_ = std::move(acc);
  return result;
}

namespace {

// MySQL prints one element per uuid: untagged intervals first (the empty tag sorts first in
// the map), then each tag in order, e.g. "uuid:1-5:7:tag:1-3"; elements joined by `sep`.
std::string format(const std::map<gtid_set::stream_key, interval_list>& streams, std::string_view sep) {
  std::string out;
  const std::string* prev_uuid = nullptr;
  for (const auto& [key, list] : streams) {
    const auto& [uuid, tag] = key;
    if (!prev_uuid || *prev_uuid != uuid) {
      if (prev_uuid) out += sep;
      out += uuid;
      prev_uuid = &uuid;
    }
    if (!tag.empty()) {
      out += ':';
      out += tag;
    }
    for (const auto& [first, last] : list) {
      out += ':';
      out += std::to_string(first);
      if (last != first) {
        out += '-';
        out += std::to_string(last);
      }
    }
  }
  return out;
}

}  // namespace

std::string gtid_set::to_string() const { return format(streams_, ",\n"); }

std::string gtid_set::to_compact_string() const { return format(streams_, ","); }

uint64_t gtid_set::count() const {
  uint64_t total = 0;
  for (const auto& [key, list] : streams_)
    for (const auto& [first, last] : list) total = saturating_add(total, last - first + 1);
  return total;
}

gtid_set gtid_set::unite(const gtid_set& other) const {
  gtid_set r;
  r.streams_ = combine(streams_, other.streams_, unite_lists);
  return r;
}

gtid_set gtid_set::intersect(const gtid_set& other) const {
  gtid_set r;
  r.streams_ = combine(streams_, other.streams_, intersect_lists);
  return r;
}

gtid_set gtid_set::subtract(const gtid_set& other) const {
  gtid_set r;
  r.streams_ = combine(streams_, other.streams_, subtract_lists);
  return r;
}

bool gtid_set::contains(const gtid_set& other) const {
  static const interval_list none;
  for (const auto& [key, list] : other.streams_) {
    auto it = streams_.find(key);
    if (!contains_list(it == streams_.end() ? none : it->second, list)) return false;
  }
  return true;
}

void gtid_set::add(const std::string& uuid, const std::string& tag, uint64_t first, uint64_t last) {
  if (!valid_uuid(uuid)) throw std::invalid_argument("gtid_set::add: invalid uuid '" + uuid + "'");
  if (!tag.empty() && !valid_tag(tag)) throw std::invalid_argument("gtid_set::add: invalid tag '" + tag + "'");
  if (first == 0 || first > last || last > max_gno)
    throw std::invalid_argument("gtid_set::add: invalid interval " + std::to_string(first) + "-" +
                                std::to_string(last));
  auto& list = streams_[{lowercase(uuid), lowercase(tag)}];
  // First interval that ends at or after first-1, i.e. the first one that could touch [first, last].
  auto it = std::partition_point(list.begin(), list.end(),
                                 [&](const interval& iv) { return iv.second + 1 < first; });
  auto end = it;
  while (end != list.end() && end->first <= last + 1) {
    first = std::min(first, end->first);
    last = std::max(last, end->second);
    ++end;
  }
  it = list.erase(it, end);
  list.insert(it, interval{first, last});
}

}  // namespace br
