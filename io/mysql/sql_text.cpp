// SQL literal quoting (no connection needed, so dialects can build statements as pure text).
#include "io/mysql/sql_text.hpp"

namespace br::mysql {

std::string sql_quoter::operator()(std::string_view text) const {
  std::string out;
  out.reserve(text.size() + 2);
  out.push_back('\'');
  for (char c : text) {
    if (c == '\'') {
      out += "''";
      continue;
    }
    if (!no_backslash_escapes) {
      switch (c) {
        case '\\':
          out += "\\\\";
          continue;
        case '\0':
          out += "\\0";
          continue;
        case '\n':
          out += "\\n";
          continue;
        case '\r':
          out += "\\r";
          continue;
        case '\x1a':
          out += "\\Z";
          continue;
        default:
          break;
      }
    }
    out.push_back(c);
  }
  out.push_back('\'');
  return out;
}

}  // namespace br::mysql
