// Table-driven flag/environment parsing with validation messages that name the flag or variable.
#include "config/process_flags.hpp"

#include <cctype>
#include <charconv>
#include <sstream>

#include "config/duration.hpp"
#include "config/duration_limits.hpp"

namespace br::config {
namespace {

const flag_def* find_def(const std::vector<flag_def>& defs, const std::string& name) {
  for (auto& d : defs)
    if (d.name == name) return &d;
  return nullptr;
}

bool parse_port(std::string_view s, uint16_t& port) {
  if (s.empty() || s.size() > 5) return false;
  unsigned v = 0;
  auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  if (ec != std::errc{} || p != s.data() + s.size() || v > 65535) return false;
  port = static_cast<uint16_t>(v);
  return true;
}

// "1048576", "64Ki", "1Mi" -> bytes.
bool parse_size(const std::string& v, size_t& out) {
  size_t mult = 1;
  std::string digits = v;
  if (digits.size() > 2 && digits.substr(digits.size() - 2) == "Ki") mult = 1024;
  if (digits.size() > 2 && digits.substr(digits.size() - 2) == "Mi") mult = 1024 * 1024;
  if (mult != 1) digits.resize(digits.size() - 2);
  size_t n = 0;
  auto [p, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), n);
  if (digits.empty() || ec != std::errc{} || p != digits.data() + digits.size()) return false;
  out = n * mult;
  return true;
}

}  // namespace

parsed_flags parse_flags(const std::vector<flag_def>& defs, int argc, const char* const* argv,
                         const env_lookup& getenv_fn) {
  parsed_flags out;
  for (int i = 1; i < argc; ++i) {
    std::string arg = argv[i];
    if (arg == "--help" || arg == "-h") {
      out.what = parsed_flags::action::help;
      return out;
    }
    if (arg == "--version") {
      out.what = parsed_flags::action::version;
      return out;
    }
    if (arg.rfind("--", 0) != 0) {
      out.what = parsed_flags::action::fail;
      out.error = "unexpected argument \"" + arg + "\" (flags start with --; see --help)";
      return out;
    }
    auto body = arg.substr(2);
    std::string name = body, value;
    bool has_value = false;
    if (auto eq = body.find('='); eq != std::string::npos) {
      name = body.substr(0, eq);
      value = body.substr(eq + 1);
      has_value = true;
    }
    auto def = find_def(defs, name);
    if (!def) {
      out.what = parsed_flags::action::fail;
      out.error = "unknown flag --" + name + " (see --help)";
      return out;
    }
    if (!has_value) {
      if (def->is_switch) {
        value = "true";
      } else if (i + 1 < argc) {
        value = argv[++i];
      } else {
        out.what = parsed_flags::action::fail;
        out.error = "flag --" + name + " needs a value";
        return out;
      }
    }
    out.values[name] = value;
    out.source[name] = "--" + name;
  }
  for (auto& d : defs) {
    if (!out.values.count(d.name)) {
      const char* e = d.env.empty() ? nullptr : getenv_fn(d.env.c_str());
      if (e) {
        out.values[d.name] = e;
        out.source[d.name] = d.env;
      } else {
        out.values[d.name] = d.default_value;
        out.source[d.name] = "default";
      }
    }
    if (d.check) {
      auto problem = d.check(out.values[d.name]);
      if (!problem.empty()) {
        auto& src = out.source[d.name];
        out.what = parsed_flags::action::fail;
        std::string who = src == "default" ? "default of --" + d.name
                          : src.rfind("--", 0) == 0 ? "flag " + src
                                                    : "environment variable " + src;
        out.error = "invalid value \"" + out.values[d.name] + "\" for " + who + ": " + problem;
        return out;
      }
    }
  }
  return out;
}

std::string usage(const std::string& binary, const std::string& summary,
                  const std::vector<flag_def>& defs) {
  std::ostringstream os;
  os << "Usage: " << binary << " [flags]\n\n" << summary << "\n\nFlags (flag > environment > default):\n";
  for (auto& d : defs) {
    os << "  --" << d.name << (d.is_switch ? "" : " VALUE");
    if (!d.env.empty()) os << "   [$" << d.env << "]";
    os << "\n      " << d.help;
    if (!d.default_value.empty()) os << " (default \"" << d.default_value << "\")";
    os << "\n";
  }
  os << "  --help      print this text and exit\n  --version   print the version and exit\n";
  return os.str();
}

std::function<std::string(const std::string&)> check_duration_within(std::chrono::nanoseconds min,
                                                                     std::chrono::nanoseconds max) {
  return [b = duration_bounds{min, max}](const std::string& v) -> std::string {
    auto d = parse_duration(v);
    if (!d) return d.error;
    if (d.value->count() <= 0) return "must be greater than zero";
    return check_bounds(*d.value, b);
  };
}

std::string check_duration(const std::string& v) {
  static const auto check = check_duration_within(limits::any_flag.min, limits::any_flag.max);
  return check(v);
}

std::string check_log_level(const std::string& v) {
  if (v == "debug" || v == "info" || v == "warn" || v == "error") return {};
  return "must be one of debug, info, warn, error";
}

std::string check_listen_address(const std::string& v) {
  auto colon = v.rfind(':');
  if (colon == std::string::npos) return "must be [host]:port, e.g. :8080 or 127.0.0.1:8080";
  uint16_t port = 0;
  if (!parse_port(std::string_view(v).substr(colon + 1), port))
    return "port must be a number from 0 to 65535";
  auto host = v.substr(0, colon);
  for (char c : host)
    if (!(std::isalnum(static_cast<unsigned char>(c)) || c == '.' || c == '-' || c == '[' ||
          c == ']' || c == ':'))
      return "host contains an invalid character";
  return {};
}

std::string check_host_port_list(const std::string& v) {
  if (v.empty()) return {};
  std::stringstream ss(v);
  std::string item;
  while (std::getline(ss, item, ',')) {
    auto begin = item.find_first_not_of(' ');
    auto end = item.find_last_not_of(' ');
    if (begin == std::string::npos) return "empty entry in the list";
    item = item.substr(begin, end - begin + 1);
    auto colon = item.rfind(':');
    uint16_t port = 0;
    if (colon == std::string::npos || colon == 0 ||
        !parse_port(std::string_view(item).substr(colon + 1), port) || port == 0)
      return "entry \"" + item + "\" must be host:port with a port from 1 to 65535";
  }
  return {};
}

std::string check_bool(const std::string& v) {
  if (v == "true" || v == "false" || v == "1" || v == "0") return {};
  return "must be true or false";
}

std::string check_positive_size(const std::string& v) {
  size_t n = 0;
  if (!parse_size(v, n) || n == 0)
    return "must be a positive number of bytes (suffix Ki or Mi allowed)";
  return {};
}

bool to_bool(const std::string& v) { return v == "true" || v == "1"; }

std::chrono::nanoseconds to_duration(const std::string& v) {
  auto d = parse_duration(v);
  return d ? *d.value : std::chrono::nanoseconds{0};
}

size_t to_size(const std::string& v) {
  size_t n = 0;
  parse_size(v, n);
  return n;
}

void split_host_port(const std::string& v, std::string& host, uint16_t& port) {
  auto colon = v.rfind(':');
  host = v.substr(0, colon);
  if (host.size() >= 2 && host.front() == '[' && host.back() == ']')
    host = host.substr(1, host.size() - 2);
  port = 0;
  parse_port(std::string_view(v).substr(colon + 1), port);
}

}  // namespace br::config
