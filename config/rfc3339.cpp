// RFC 3339 parsing and formatting on std::chrono calendar types.
#include "config/rfc3339.hpp"

#include <cstdio>

namespace br::config {
namespace {

bool digits(std::string_view s, std::size_t pos, std::size_t n, int& out) {
  if (pos + n > s.size()) return false;
  out = 0;
  for (std::size_t i = pos; i < pos + n; ++i) {
    if (s[i] < '0' || s[i] > '9') return false;
    out = out * 10 + (s[i] - '0');
  }
  return true;
}

}  // namespace

std::optional<timestamp> parse_rfc3339(std::string_view s) {
  using namespace std::chrono;
  int y, mo, d, h, mi, se;
  if (!digits(s, 0, 4, y) || s.size() < 20 || s[4] != '-' || !digits(s, 5, 2, mo) || s[7] != '-' ||
      !digits(s, 8, 2, d) || (s[10] != 'T' && s[10] != 't') || !digits(s, 11, 2, h) ||
      s[13] != ':' || !digits(s, 14, 2, mi) || s[16] != ':' || !digits(s, 17, 2, se))
    return std::nullopt;
  year_month_day ymd{year{y}, month{static_cast<unsigned>(mo)}, day{static_cast<unsigned>(d)}};
  if (!ymd.ok() || h > 23 || mi > 59 || se > 60) return std::nullopt;
  std::size_t i = 19;
  int millis = 0;
  if (s[i] == '.') {
    std::size_t start = ++i;
    while (i < s.size() && s[i] >= '0' && s[i] <= '9') {
      if (i - start < 3) millis = millis * 10 + (s[i] - '0');
      ++i;
    }
    if (i == start) return std::nullopt;
    for (std::size_t n = i - start; n < 3; ++n) millis *= 10;
  }
  minutes offset{0};
  if (i < s.size() && (s[i] == 'Z' || s[i] == 'z')) {
    ++i;
  } else if (i < s.size() && (s[i] == '+' || s[i] == '-')) {
    int oh, om;
    if (!digits(s, i + 1, 2, oh) || i + 3 >= s.size() || s[i + 3] != ':' ||
        !digits(s, i + 4, 2, om) || oh > 23 || om > 59)
      return std::nullopt;
    offset = hours{oh} + minutes{om};
    if (s[i] == '-') offset = -offset;
    i += 6;
  } else {
    return std::nullopt;
  }
  if (i != s.size()) return std::nullopt;
  // A leap second (":60") folds into the next second, as Go does.
  auto local = sys_days{ymd} + hours{h} + minutes{mi} + seconds{se} + milliseconds{millis};
  return timestamp{local - offset};
}

std::string format_rfc3339(timestamp t) {
  using namespace std::chrono;
  auto day = floor<days>(t);
  year_month_day ymd{day};
  hh_mm_ss hms{t - day};
  char buf[40];
  int n =
      std::snprintf(buf, sizeof buf, "%04d-%02u-%02uT%02d:%02d:%02d", static_cast<int>(ymd.year()),
                    static_cast<unsigned>(ymd.month()), static_cast<unsigned>(ymd.day()),
                    static_cast<int>(hms.hours().count()), static_cast<int>(hms.minutes().count()),
                    static_cast<int>(hms.seconds().count()));
  std::string out(buf, static_cast<std::size_t>(n));
  if (auto ms = hms.subseconds().count(); ms != 0) {
    std::snprintf(buf, sizeof buf, ".%03d", static_cast<int>(ms));
    out += buf;
  }
  out += 'Z';
  return out;
}

}  // namespace br::config

namespace br::config {

std::optional<std::int64_t> parse_stop_datetime(std::string_view text) {
  std::string t{text};
  if (t.size() == 19 && t[10] == ' ') t[10] = 'T', t += 'Z';
  if (t.find('.') != std::string::npos) return std::nullopt;
  auto p = parse_rfc3339(t);
  if (!p) return std::nullopt;
  return std::chrono::duration_cast<std::chrono::seconds>(p->time_since_epoch()).count();
}

}  // namespace br::config
