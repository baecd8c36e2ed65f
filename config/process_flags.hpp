// Command-line flags and environment variables of both binaries: table-driven parsing + validation.
#pragma once

#include <chrono>
#include <functional>
#include <map>
#include <string>
#include <vector>

namespace br::config {

/// One setting: `--name VALUE` (or `--name=VALUE`) on the command line, else the environment
/// variable `env`, else `default_value`. Flags win over the environment.
struct flag_def {
  std::string name;           // without the leading "--"
  std::string env;            // environment variable, may be empty
  std::string default_value;  // used when neither is given
  std::string help;
  bool is_switch = false;  // boolean flag: `--name` alone means "true"
  /// Returns "" when the value is acceptable, else what is wrong with it.
  std::function<std::string(const std::string&)> check;
};

/// The outcome of parsing: the values, or an instruction for main().
struct parsed_flags {
  enum class action { run, help, version, fail } what = action::run;
  std::map<std::string, std::string> values;  // by flag name
  std::map<std::string, std::string> source;  // "--name", "ENV", or "default"
  std::string error;                          // for fail: names the flag or variable
};

using env_lookup = std::function<const char*(const char*)>;

parsed_flags parse_flags(const std::vector<flag_def>& defs, int argc, const char* const* argv,
                         const env_lookup& getenv_fn);

/// Text for --help: usage line, then every flag with its variable, default and help.
std::string usage(const std::string& binary, const std::string& summary,
                  const std::vector<flag_def>& defs);

// -- reusable checks ----------------------------------------------------------------------------

std::string check_duration(const std::string& v);       // Go-style, > 0 and <= 24h
/// A check for a Go-style duration within [min, max] (inclusive); the message says which bound.
std::function<std::string(const std::string&)> check_duration_within(std::chrono::nanoseconds min,
                                                                     std::chrono::nanoseconds max);
std::string check_log_level(const std::string& v);      // debug|info|warn|error
std::string check_listen_address(const std::string& v);  // "[host]:port", port 0..65535
std::string check_host_port_list(const std::string& v);  // "h:p,h:p" (may be empty)
std::string check_bool(const std::string& v);           // true|false|1|0
std::string check_positive_size(const std::string& v);  // bytes, with optional Ki/Mi suffix

bool to_bool(const std::string& v);
std::chrono::nanoseconds to_duration(const std::string& v);
size_t to_size(const std::string& v);

/// Splits "host:port" ("" host = all interfaces). Precondition: check_listen_address passed.
void split_host_port(const std::string& v, std::string& host, uint16_t& port);

}  // namespace br::config
