// Five-field cron validation (fields and ranges, not just the count).
#include "config/cron.hpp"

#include <array>
#include <cctype>
#include <charconv>
#include <vector>

namespace br::config {
namespace {

struct field_def {
  const char* name;
  int min, max;
  const char* const* names;  // 3-letter names for min..; null = none
  bool question;             // '?' allowed (day fields)
};

const char* const months[] = {"JAN", "FEB", "MAR", "APR", "MAY", "JUN",
                              "JUL", "AUG", "SEP", "OCT", "NOV", "DEC"};
const char* const days[] = {"SUN", "MON", "TUE", "WED", "THU", "FRI", "SAT"};

const std::array<field_def, 5> fields{{{"minute", 0, 59, nullptr, false},
                                       {"hour", 0, 23, nullptr, false},
                                       {"day of month", 1, 31, nullptr, true},
                                       {"month", 1, 12, months, false},
                                       {"day of week", 0, 7, days, true}}};

std::vector<std::string_view> split(std::string_view s, char sep) {
  std::vector<std::string_view> out;
  std::size_t start = 0;
  while (true) {
    auto p = s.find(sep, start);
    out.push_back(s.substr(start, p == std::string_view::npos ? p : p - start));
    if (p == std::string_view::npos) return out;
    start = p + 1;
  }
}

/// A number or (for month/day of week) a name; -1 when neither.
int value_of(std::string_view s, const field_def& f) {
  if (s.empty()) return -1;
  if (f.names && s.size() == 3) {
    int count = f.max - f.min + 1 - (f.names == days ? 1 : 0);  // 7 has no name
    for (int i = 0; i < count; ++i) {
      bool eq = true;
      for (int k = 0; k < 3; ++k)
        if (std::toupper(static_cast<unsigned char>(s[k])) != f.names[i][k]) eq = false;
      if (eq) return f.min + i;
    }
  }
  int v = 0;
  auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  if (ec != std::errc{} || end != s.data() + s.size()) return -1;
  return v;
}

std::string check_field(std::string_view text, const field_def& f) {
  std::string name = f.name;
  if (text.empty()) return name + ": empty";
  for (auto item : split(text, ',')) {
    if (item.empty()) return name + ": empty list item in \"" + std::string{text} + "\"";
    auto slash = item.find('/');
    std::string_view range = item.substr(0, slash);
    if (slash != std::string_view::npos) {
      auto step_text = item.substr(slash + 1);
      int step = 0;
      auto [end, ec] = std::from_chars(step_text.data(), step_text.data() + step_text.size(), step);
      if (ec != std::errc{} || end != step_text.data() + step_text.size() || step < 1)
        return name + ": invalid step \"" + std::string{step_text} + "\" (a number >= 1)";
    }
    if (range == "*" || (f.question && range == "?")) continue;
    auto dash = range.find('-');
    auto lo_text = range.substr(0, dash);
    int lo = value_of(lo_text, f);
    if (lo < 0) return name + ": \"" + std::string{lo_text} + "\" is not a number";
    if (lo < f.min || lo > f.max)
      return name + ": " + std::string{lo_text} + " is out of range " + std::to_string(f.min) +
             "-" + std::to_string(f.max);
    if (dash != std::string_view::npos) {
      auto hi_text = range.substr(dash + 1);
      int hi = value_of(hi_text, f);
      if (hi < 0) return name + ": \"" + std::string{hi_text} + "\" is not a number";
      if (hi < f.min || hi > f.max)
        return name + ": " + std::string{hi_text} + " is out of range " + std::to_string(f.min) +
               "-" + std::to_string(f.max);
      if (hi < lo)
        return name + ": range " + std::string{range} + " ends before it starts";
    }
  }
  return {};
}

}  // namespace

std::string check_cron(std::string_view expr) {
  if (!expr.empty() && expr.front() == '@') {
    for (const char* m : {"@yearly", "@annually", "@monthly", "@weekly", "@daily", "@midnight",
                          "@hourly"})
      if (expr == m) return {};
    return "unknown macro \"" + std::string{expr} +
           "\": expected @yearly, @annually, @monthly, @weekly, @daily, @midnight or @hourly";
  }
  std::vector<std::string_view> parts;
  std::size_t i = 0;
  while (i < expr.size()) {
    while (i < expr.size() && (expr[i] == ' ' || expr[i] == '\t')) ++i;
    if (i >= expr.size()) break;
    auto start = i;
    while (i < expr.size() && expr[i] != ' ' && expr[i] != '\t') ++i;
    parts.push_back(expr.substr(start, i - start));
  }
  if (parts.size() != 5)
    return "expected 5 fields (minute hour day-of-month month day-of-week), got " +
           std::to_string(parts.size());
  for (std::size_t k = 0; k < 5; ++k)
    if (auto e = check_field(parts[k], fields[k]); !e.empty()) return e;
  return {};
}

bool plausible_time_zone(std::string_view tz) {
  return !tz.empty() && tz.size() <= 64 &&
         tz.find_first_not_of("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789/_+-") ==
             std::string_view::npos &&
         !tz.starts_with("/") && tz.find("..") == std::string_view::npos;
}

}  // namespace br::config
