// mysqldump header parsing (see dump_header.hpp).
#include "io/backup/dump_header.hpp"

#include "messages/gtid_set.hpp"

namespace br::backup {
namespace {

/// The first single-quoted value after `from` (no escapes in GTID sets or file names).
std::optional<std::string> quoted_after(std::string_view text, size_t from, size_t* end = nullptr) {
  auto open = text.find('\'', from);
  if (open == std::string_view::npos) return std::nullopt;
  auto close = text.find('\'', open + 1);
  if (close == std::string_view::npos) return std::nullopt;
  if (end != nullptr) *end = close + 1;
  return std::string(text.substr(open + 1, close - open - 1));
}

}  // namespace

dump_header parse_dump_header(std::string_view text) {
  dump_header h;
  // GTID_PURGED: SET @@GLOBAL.GTID_PURGED=/*!80000 '+'*/ 'uuid:1-5,\nuuid2:1-3';
  static constexpr std::string_view gtid_key = "SET @@GLOBAL.GTID_PURGED=";
  if (auto at = text.find(gtid_key); at != std::string_view::npos) {
    size_t pos = at + gtid_key.size();
    auto stmt_end = text.find(';', pos);
    if (stmt_end != std::string_view::npos) {
      std::string_view stmt = text.substr(pos, stmt_end - pos);
      // Skip the versioned '+' comment: the set is the last quoted value of the statement.
      std::optional<std::string> last;
      size_t p = 0;
      while (true) {
        size_t e = 0;
        auto v = quoted_after(stmt, p, &e);
        if (!v) break;
        last = v;
        p = e;
      }
      if (last && *last != "+") {
        if (auto set = gtid_set::parse(*last)) h.gtid_purged = set->to_compact_string();
      }
    }
  }
  static constexpr std::string_view pos_key = "CHANGE REPLICATION SOURCE TO SOURCE_LOG_FILE=";
  if (auto at = text.find(pos_key); at != std::string_view::npos) {
    size_t e = 0;
    auto file = quoted_after(text, at + pos_key.size() - 1, &e);
    static constexpr std::string_view num_key = "SOURCE_LOG_POS=";
    auto np = text.find(num_key, e);
    auto line_end = text.find('\n', at);
    if (file && np != std::string_view::npos && (line_end == std::string_view::npos || np < line_end)) {
      size_t i = np + num_key.size();
      uint64_t v = 0;
      size_t digits = 0;
      while (i < text.size() && text[i] >= '0' && text[i] <= '9' && digits < 19) {
        v = v * 10 + static_cast<uint64_t>(text[i] - '0');
        ++i;
        ++digits;
      }
      if (digits > 0) {
        h.binlog_file = *file;
        h.binlog_pos = v;
      }
    }
  }
  bool data_started = text.find("\nCREATE DATABASE ") != std::string_view::npos ||
                      text.find("\nUSE `") != std::string_view::npos;
  h.done = (h.gtid_purged && h.binlog_file) || data_started;
  return h;
}

}  // namespace br::backup
