// Binlog file summary: magic, v4 event headers, the Format_description's checksum algorithm and
// the Previous_gtids event, decoded without the server.
#include "io/binlog/binlog_file.hpp"

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <fstream>
#include <stdexcept>

namespace br::binlog {

namespace {

constexpr size_t header_size = 19;  // v4 common header
constexpr std::string_view magic{"\xfe" "bin", 4};
constexpr std::string_view encrypted_magic{"\xfd" "bin", 4};

uint64_t le(const unsigned char* p, size_t n) {
  uint64_t v = 0;
  for (size_t i = 0; i < n; ++i) v |= static_cast<uint64_t>(p[i]) << (8 * i);
  return v;
}

std::string hex_uuid(const unsigned char* p) {
  static const char* digits = "0123456789abcdef";
  std::string out;
  for (int i = 0; i < 16; ++i) {
    if (i == 4 || i == 6 || i == 8 || i == 10) out += '-';
    out += digits[p[i] >> 4];
    out += digits[p[i] & 15];
  }
  return out;
}

/// Reads bytes by offset from memory or a file.
class source {
 public:
  virtual ~source() = default;
  virtual uint64_t size() const = 0;
  /// Exactly n bytes at offset into out; false when they are not all there.
  virtual bool read(uint64_t offset, size_t n, std::string& out) = 0;
};

class memory_source : public source {
 public:
  explicit memory_source(std::string_view b) : b_(b) {}
  uint64_t size() const override { return b_.size(); }
  bool read(uint64_t offset, size_t n, std::string& out) override {
    if (offset > b_.size() || b_.size() - offset < n) return false;
    out.assign(b_.substr(offset, n));
    return true;
  }

 private:
  std::string_view b_;
};

class file_source : public source {
 public:
  explicit file_source(const std::string& path) : in_(path, std::ios::binary) {
    if (in_) {
      in_.seekg(0, std::ios::end);
      size_ = static_cast<uint64_t>(in_.tellg());
    }
  }
  bool open() const { return static_cast<bool>(in_); }
  uint64_t size() const override { return size_; }
  bool read(uint64_t offset, size_t n, std::string& out) override {
    if (offset > size_ || size_ - offset < n) return false;
    out.resize(n);
    in_.clear();
    in_.seekg(static_cast<std::streamoff>(offset));
    in_.read(out.data(), static_cast<std::streamsize>(n));
    return static_cast<size_t>(in_.gcount()) == n;
  }

 private:
  std::ifstream in_;
  uint64_t size_ = 0;
};

binlog_read_result fail(uint64_t offset, const std::string& what) {
  binlog_read_result r;
  r.error = "at byte " + std::to_string(offset) + ": " + what;
  return r;
}

/// Bytes of the checksum that trails every event, from the Format_description event's body
/// (its last 5 bytes: algorithm, then its own CRC32). 0 = none, 4 = CRC32.
std::optional<size_t> checksum_length(const std::string& fde_body) {
  if (fde_body.size() < 2 + 50 + 4 + 1 + 5) return std::nullopt;
  auto alg = static_cast<unsigned char>(fde_body[fde_body.size() - 5]);
  if (alg == 0) return 0;
  if (alg == 1) return 4;
  return std::nullopt;
}

binlog_read_result summarize(source& src, bool header_only) {
  std::string buf;
  if (!src.read(0, magic.size(), buf)) return fail(0, "shorter than the binlog magic number");
  if (buf == encrypted_magic)
    return fail(0, "encrypted binlog (binlog_encryption=ON): not supported by the archiver");
  if (buf != magic) return fail(0, "not a binlog file (bad magic number)");
  binlog_summary s;
  uint64_t pos = magic.size();
  size_t checksum = 0;
  bool saw_fde = false, saw_previous = false;
  while (pos < src.size()) {
    if (!src.read(pos, header_size, buf)) return fail(pos, "truncated event header");
    auto* h = reinterpret_cast<const unsigned char*>(buf.data());
    auto when = static_cast<int64_t>(le(h, 4));
    auto type = h[4];
    auto length = le(h + 9, 4);
    if (length < header_size) return fail(pos, "event length " + std::to_string(length) + " below 19");
    if (src.size() - pos < length) return fail(pos, "truncated event (type " + std::to_string(type) + ")");
    if (!saw_fde) {
      if (type != format_description_event)
        return fail(pos, "first event is type " + std::to_string(type) + ", not Format_description");
      std::string body;
      if (!src.read(pos + header_size, length - header_size, body)) return fail(pos, "unreadable event");
      auto c = checksum_length(body);
      if (!c) return fail(pos, "Format_description without a known checksum algorithm");
      if (static_cast<unsigned char>(body[2 + 50 + 4]) != header_size)
        return fail(pos, "common header length is not 19 (not a v4 binlog)");
      checksum = *c;
      saw_fde = true;
      s.first_event_time = when;
    } else if (type == previous_gtids_event && !saw_previous) {
      if (length < header_size + checksum) return fail(pos, "Previous_gtids event too short");
      std::string body;
      if (!src.read(pos + header_size, length - header_size - checksum, body))
        return fail(pos, "unreadable event");
      std::string why;
      auto set = decode_previous_gtids(body, &why);
      if (!set) return fail(pos, "Previous_gtids: " + why);
      s.previous_gtids = std::move(*set);
      saw_previous = true;
      if (header_only) {
        s.last_event_time = std::max(s.first_event_time, when);
        s.events += 1;
        s.size = pos + length;
        binlog_read_result r;
        r.summary = std::move(s);
        return r;
      }
    }
    if (type == gtid_event || type == gtid_tagged_event) ++s.transactions;
    s.last_event_time = std::max(s.last_event_time, when);
    s.ends_with_rotate = type == rotate_event;
    ++s.events;
    pos += length;
  }
  if (!saw_fde) return fail(pos, "no events");
  if (!saw_previous) return fail(pos, "no Previous_gtids event (GTID mode off?)");
  s.size = pos;
  binlog_read_result r;
  r.summary = std::move(s);
  return r;
}

/// The statement scan (gtids_of_statements) over one source.
std::optional<gtid_set> scan_statements(source& src, const std::function<bool(std::string_view)>& pick,
                                        std::string& error) {
  constexpr size_t statement_prefix = 256;
  auto bad = [&](uint64_t at, const std::string& what) -> std::optional<gtid_set> {
    error = "at byte " + std::to_string(at) + ": " + what;
    return std::nullopt;
  };
  std::string buf;
  if (!src.read(0, magic.size(), buf) || buf != magic) return bad(0, "not a readable, unencrypted binlog file");
  gtid_set out;
  uint64_t pos = magic.size();
  size_t checksum = 0, query_post_header = 13;
  bool saw_fde = false;
  std::optional<std::pair<std::string, uint64_t>> pending;  // the current transaction's GTID
  bool pending_tagged = false;
  while (pos < src.size()) {
    if (!src.read(pos, header_size, buf)) return bad(pos, "truncated event header");
    auto* h = reinterpret_cast<const unsigned char*>(buf.data());
    auto type = h[4];
    auto length = le(h + 9, 4);
    if (length < header_size + checksum || src.size() - pos < length) return bad(pos, "truncated event");
    const uint64_t body_at = pos + header_size, body_len = length - header_size - checksum;
    std::string body;
    if (!saw_fde) {
      if (type != format_description_event || !src.read(body_at, length - header_size, body))
        return bad(pos, "no Format_description event first");
      auto c = checksum_length(body);
      if (!c) return bad(pos, "Format_description without a known checksum algorithm");
      checksum = *c;
      constexpr size_t lengths_at = 2 + 50 + 4 + 1;  // post-header lengths, one per type from 1
      if (body.size() > lengths_at + query_event - 1) query_post_header = static_cast<unsigned char>(body[lengths_at + query_event - 1]);
      saw_fde = true;
    } else if (type == gtid_event) {
      if (body_len < 1 + 16 + 8 || !src.read(body_at, 1 + 16 + 8, body)) return bad(pos, "GTID event too short");
      auto* b = reinterpret_cast<const unsigned char*>(body.data());
      pending = std::make_pair(hex_uuid(b + 1), le(b + 17, 8));
      pending_tagged = false;
    } else if (type == gtid_tagged_event) {
      pending.reset();
      pending_tagged = true;
    } else if (type == query_event && (pending || pending_tagged)) {
      if (body_len < query_post_header || query_post_header < 13 || !src.read(body_at, query_post_header, body))
        return bad(pos, "Query event too short");
      auto* b = reinterpret_cast<const unsigned char*>(body.data());
      const uint64_t text_at = query_post_header + le(b + 11, 2) + b[8] + 1;  // status vars, db, NUL
      if (text_at > body_len) return bad(pos, "Query event lengths exceed the event");
      std::string text;
      if (!src.read(body_at + text_at, std::min<uint64_t>(body_len - text_at, statement_prefix), text))
        return bad(pos, "unreadable Query event");
      if (pick(text)) {
        if (pending_tagged) return bad(pos, "a picked statement under a tagged GTID (not decoded): " + text.substr(0, 40));
        if (pending->second == 0 || pending->second > gtid_set::max_gno) return bad(pos, "GTID number out of range");
        out.add(pending->first, "", pending->second, pending->second);
      }
      pending.reset();
      pending_tagged = false;
    }
    pos += length;
  }
  if (!saw_fde) return bad(pos, "no events");
  return out;
}

}  // namespace

std::optional<gtid_set> gtids_of_statements(const std::string& path, const std::function<bool(std::string_view)>& pick,
                                            std::string& error) {
  file_source src(path);
  if (!src.open()) {
    error = "cannot open " + path;
    return std::nullopt;
  }
  auto out = scan_statements(src, pick, error);
  if (!out) error = path + ": " + error;
  return out;
}

std::optional<gtid_set> gtids_of_statements_in(std::string_view bytes, const std::function<bool(std::string_view)>& pick,
                                               std::string& error) {
  memory_source src(bytes);
  return scan_statements(src, pick, error);
}

std::optional<gtid_set> decode_previous_gtids(std::string_view body, std::string* error) {
  size_t p = 0;
  auto bad = [&](const std::string& what) -> std::optional<gtid_set> {
    if (error) *error = "at body byte " + std::to_string(p) + ": " + what;
    return std::nullopt;
  };
  auto u = [&](size_t n) { return le(reinterpret_cast<const unsigned char*>(body.data()) + p, n); };
  if (body.size() < 8) return bad("shorter than the 8-byte header");
  uint64_t head = u(8);
  p = 8;
  bool tagged = (head >> 56) == 1;
  if ((head >> 56) > 1) return bad("unknown GTID set format " + std::to_string(head >> 56));
  uint64_t n_sids = tagged ? (head >> 8) & ((uint64_t{1} << 48) - 1) : head & ((uint64_t{1} << 56) - 1);
  gtid_set out;
  for (uint64_t i = 0; i < n_sids; ++i) {
    if (body.size() - p < 16) return bad("truncated uuid");
    auto uuid = hex_uuid(reinterpret_cast<const unsigned char*>(body.data()) + p);
    p += 16;
    std::string tag;
    if (tagged) {
      // Variable-length unsigned integer: the count of trailing one bits of the first byte, plus
      // one, is the encoded length; the value sits above those bits (9 bytes: all 8 after 0xff).
      if (p >= body.size()) return bad("truncated tag length");
      auto first = static_cast<unsigned char>(body[p]);
      size_t len = 1;
      while (len < 9 && (first & (1u << (len - 1)))) ++len;
      if (body.size() - p < len) return bad("truncated tag length");
      uint64_t tag_len = len == 9 ? le(reinterpret_cast<const unsigned char*>(body.data()) + p + 1, 8)
                                  : u(len) >> len;
      p += len;
      if (tag_len > gtid_set::max_tag_length) return bad("tag longer than 32 characters");
      if (body.size() - p < tag_len) return bad("truncated tag");
      tag.assign(body.substr(p, tag_len));
      p += tag_len;
    }
    if (body.size() - p < 8) return bad("truncated interval count");
    uint64_t n_intervals = u(8);
    p += 8;
    if (n_intervals > (body.size() - p) / 16) return bad("interval count beyond the event");
    for (uint64_t k = 0; k < n_intervals; ++k) {
      uint64_t start = u(8);
      uint64_t end = le(reinterpret_cast<const unsigned char*>(body.data()) + p + 8, 8);
      if (start < 1 || end <= start) return bad("empty or inverted interval");
      try {
        out.add(uuid, tag, start, end - 1);
      } catch (const std::invalid_argument& e) {
        return bad(e.what());
      }
      p += 16;
    }
  }
  if (p != body.size()) return bad(std::to_string(body.size() - p) + " bytes after the last stream");
  return out;
}

binlog_read_result summarize_binlog(std::string_view bytes) {
  memory_source src(bytes);
  return summarize(src, false);
}

binlog_read_result summarize_binlog_file(const std::string& path, bool header_only) {
  file_source src(path);
  if (!src.open()) {
    binlog_read_result r;
    r.error = "cannot open " + path + ": " + std::strerror(errno);
    return r;
  }
  auto r = summarize(src, header_only);
  if (!r.summary) r.error = path + " " + r.error;
  return r;
}

}  // namespace br::binlog
