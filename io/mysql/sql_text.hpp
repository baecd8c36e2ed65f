// SQL literal quoting for statements built as text (CHANGE REPLICATION SOURCE, CLONE, KILL, ...).
#pragma once

#include <string>
#include <string_view>

namespace br::mysql {

/// Quotes strings as single-quoted SQL literals. The server announces NO_BACKSLASH_ESCAPES in
/// its status flags; the connection fills that in so a backslash in a password stays a backslash.
struct sql_quoter {
  bool no_backslash_escapes = false;

  /// 'it''s' ; with backslash escapes also \\ \0 \n \r \Z escaped like mysql_real_escape_string.
  std::string operator()(std::string_view text) const;
};

}  // namespace br::mysql
