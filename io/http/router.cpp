// Route lookup and request-target parsing.
#include "io/http/router.hpp"

namespace br::http {

router& router::add(std::string method, std::string path, std::string name, handler h) {
  auto& slot = by_path_[path][method];
  slot = route{std::move(method), std::move(path), std::move(name), std::move(h), {}};
  return *this;
}

router& router::add_upgrade(std::string path, std::string name, upgrade_handler on_upgrade,
                            handler plain) {
  auto& slot = by_path_[path]["GET"];
  slot = route{"GET", std::move(path), std::move(name), std::move(plain), std::move(on_upgrade)};
  return *this;
}

router::match router::find(std::string_view method, std::string_view path) const {
  match m;
  auto p = by_path_.find(path);
  if (p == by_path_.end()) {
    m.name = "not_found";
    return m;
  }
  auto pick = [&](std::string_view verb) -> const route* {
    auto it = p->second.find(std::string{verb});
    return it == p->second.end() ? nullptr : &it->second;
  };
  const route* r = pick(method);
  if (!r && method == "HEAD") r = pick("GET");
  if (r) {
    m.kind = outcome::found;
    m.found = r;
    m.name = r->name;
    return m;
  }
  m.kind = outcome::method_not_allowed;
  m.name = p->second.begin()->second.name;
  for (const auto& [verb, rt] : p->second) {
    if (!m.allow.empty()) m.allow += ", ";
    m.allow += verb;
  }
  return m;
}

namespace {
int hex_value(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}
}  // namespace

std::optional<std::string> percent_decode(std::string_view in, bool plus_is_space) {
  std::string out;
  out.reserve(in.size());
  for (std::size_t i = 0; i < in.size(); ++i) {
    char c = in[i];
    if (c == '%') {
      if (i + 2 >= in.size()) return std::nullopt;
      int hi = hex_value(in[i + 1]), lo = hex_value(in[i + 2]);
      if (hi < 0 || lo < 0) return std::nullopt;
      out.push_back(static_cast<char>(hi * 16 + lo));
      i += 2;
    } else if (c == '+' && plus_is_space) {
      out.push_back(' ');
    } else {
      out.push_back(c);
    }
  }
  return out;
}

std::optional<parsed_target> parse_target(std::string_view target) {
  if (target.empty() || target.front() != '/') return std::nullopt;
  if (auto hash = target.find('#'); hash != std::string_view::npos) target = target.substr(0, hash);
  parsed_target out;
  auto qpos = target.find('?');
  auto path = percent_decode(target.substr(0, qpos), false);
  if (!path) return std::nullopt;
  out.path = std::move(*path);
  if (qpos == std::string_view::npos) return out;
  std::string_view rest = target.substr(qpos + 1);
  while (!rest.empty()) {
    auto amp = rest.find('&');
    std::string_view pair = rest.substr(0, amp);
    rest = amp == std::string_view::npos ? std::string_view{} : rest.substr(amp + 1);
    if (pair.empty()) continue;
    auto eq = pair.find('=');
    auto key = percent_decode(pair.substr(0, eq), true);
    auto value = eq == std::string_view::npos ? std::optional<std::string>{std::string{}}
                                              : percent_decode(pair.substr(eq + 1), true);
    if (!key || !value) return std::nullopt;
    out.query[std::move(*key)] = std::move(*value);
  }
  return out;
}

}  // namespace br::http
