// Dragonfly's command line in Kubernetes mode: the operator-owned flags and the user's args
// with every operator-owned flag taken out.
#include "config/render/dragonfly_args.hpp"

#include <algorithm>
#include <array>
#include <string_view>

namespace br::render {
namespace {

struct owned_flag {
  std::string_view name;
  bool boolean;  // takes no separate value; `--noname` negates it
};

constexpr std::array<owned_flag, 11> owned_flags{{
    {"port", false},
    {"admin_port", false},
    {"bind", false},
    {"break_replication_on_master_restart", true},
    {"maxmemory", false},
    {"proactor_threads", false},
    {"dir", false},
    {"s3_endpoint", false},
    {"s3_use_https", true},
    {"s3_sign_payload", true},
    {"requirepass", false},
}};

/// The flag an arg names ("" when it is not a flag): leading dashes and any `=value` removed.
std::string_view flag_name(std::string_view arg, bool& has_value) {
  if (!arg.starts_with('-')) return {};
  arg.remove_prefix(arg.starts_with("--") ? 2 : 1);
  auto eq = arg.find('=');
  has_value = eq != std::string_view::npos;
  return arg.substr(0, eq);
}

const owned_flag* owned(std::string_view name) {
  for (const auto& f : owned_flags) {
    if (name == f.name) return &f;
    if (f.boolean && name.starts_with("no") && name.substr(2) == f.name) return &f;
  }
  return nullptr;
}

}  // namespace

std::vector<std::string> filter_dragonfly_args(const std::vector<std::string>& args) {
  std::vector<std::string> out;
  for (std::size_t i = 0; i < args.size(); ++i) {
    bool has_value = false;
    const auto* f = owned(flag_name(args[i], has_value));
    if (!f) {
      out.push_back(args[i]);
      continue;
    }
    // `--flag value`: the next arg is its value unless it is a flag itself.
    if (!has_value && !f->boolean && i + 1 < args.size() && !args[i + 1].starts_with('-')) ++i;
  }
  return out;
}

std::vector<std::string> dragonfly_args(const config::dragonfly_spec& spec) {
  std::vector<std::string> out = {"--port=" + std::to_string(spec.port),
                                  "--admin_port=" + std::to_string(spec.admin_port),
                                  "--bind=0.0.0.0", "--break_replication_on_master_restart",
                                  "--dir=/data"};
  if (spec.max_memory_mb > 0) out.push_back("--maxmemory=" + std::to_string(spec.max_memory_mb) + "mb");
  if (spec.proactor_threads > 0)
    out.push_back("--proactor_threads=" + std::to_string(spec.proactor_threads));
  if (spec.auth) out.push_back("--requirepass=$(DRAGONFLY_PASSWORD)");
  for (auto& a : filter_dragonfly_args(spec.args)) out.push_back(std::move(a));
  return out;
}

}  // namespace br::render
