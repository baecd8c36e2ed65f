// Simulator transport: a thread per connection (sync Beast), REST routing, chunked watch streams.
#include "tests/support/kube_sim/simulator.hpp"
#include "tests/support/kube_sim/store_util.hpp"

#include <sys/socket.h>

#include <algorithm>
#include <atomic>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/write.hpp>
#include <boost/beast/core.hpp>
#include <boost/beast/http.hpp>
#include <fstream>
#include <list>
#include <mutex>
#include <thread>

#include "io/http/router.hpp"
#include "tests/support/kube_sim/admission_webhooks.hpp"
#include "tests/support/kube_sim/discovery.hpp"
#include "tests/support/kube_sim/store.hpp"

namespace br::kube_sim {

namespace asio = boost::asio;
namespace beast = boost::beast;
namespace bhttp = beast::http;
using tcp = asio::ip::tcp;
using steady = std::chrono::steady_clock;

namespace {

struct connection {
  std::shared_ptr<tcp::socket> sock;
  std::thread thread;
  std::atomic<bool> done{false};
};

void hard_close(tcp::socket& s) {
  ::shutdown(s.native_handle(), SHUT_RDWR);
}

// Which change a watcher with filter `f` sees, if any (objects crossing the filter's edge
// appear as ADDED or DELETED, as the API server reports them).
std::string visible_type(const change& c, const view_filter& f) {
  const bool cur = c.type != "DELETED" && f.matches(c.object);
  const bool prev = !c.previous.is_null() && f.matches(c.previous);
  if (c.type == "ADDED") return cur ? "ADDED" : "";
  if (c.type == "DELETED") return prev ? "DELETED" : "";
  if (cur && prev) return "MODIFIED";
  if (cur) return "ADDED";
  if (prev) return "DELETED";
  return "";
}

}  // namespace

struct simulator::impl {
  explicit impl(options o) : opts(std::move(o)), db(opts.history_limit) {}

  options opts;
  store db;
  asio::io_context ioc;
  std::unique_ptr<tcp::acceptor> acceptor;
  std::thread accept_thread;
  std::atomic<bool> stopping{false};
  bool started = false;
  std::uint16_t port = 0;
  mutable std::mutex m;
  std::list<std::unique_ptr<connection>> conns;
  failure_rule failure;
  std::vector<write_record> writes;
  std::vector<rbac_enforcement> rbac;  // one per enforced subject
  std::vector<denial> denied;
  /// The escalation check of a Role or RoleBinding written by an enforced subject: the 403
  /// when the rules it grants are not all held by the writer (nullopt: allowed).
  std::optional<json> escalation(const rbac_enforcement& e, const request_attributes& a,
                                 const std::string& body);
  std::atomic<std::uint64_t> drop_gen{0};
  std::atomic<std::size_t> watches{0};
  webhook_caller webhooks{db};
  /// The requester's userInfo (see simulator.hpp), or {"forbidden": message} for a refused
  /// impersonation; `e` is the RBAC enforcement naming its identity, if any.
  json user_of(const bhttp::request<bhttp::string_body>& req, const rbac_enforcement* e) const;

  void accept_loop();
  void serve(connection& c);
  bool handle(tcp::socket& s, const bhttp::request<bhttp::string_body>& req);
  api_result route(const bhttp::request<bhttp::string_body>& req, const br::http::parsed_target& t,
                   std::string& content_type, std::string& raw, bool& watch_requested,
                   resource_path& rp);
  bool watch(tcp::socket& s, const resource_type& t, const resource_path& p,
             const std::map<std::string, std::string>& query, std::uint64_t drop_at_receipt);
};

simulator::simulator(options o) : impl_(std::make_unique<impl>(std::move(o))) {
  impl_->db.set_admission([w = &impl_->webhooks](const admission_request& r) { return (*w)(r); });
}

void simulator::route_service(const std::string& ns, const std::string& name, int port,
                              const std::string& address) {
  impl_->webhooks.route_service(ns, name, port, address);
}

json simulator::impl::user_of(const bhttp::request<bhttp::string_body>& req,
                              const rbac_enforcement* e) const {
  json user = {{"username", "kube-sim:admin"}, {"groups", {"system:masters", "system:authenticated"}}};
  const std::string identity{req[identity_header]};
  if (e)
    user = {{"username", e->user}, {"groups", {"system:serviceaccounts", "system:authenticated"}}};
  else if (!identity.empty())
    user = {{"username", identity}, {"groups", {"system:authenticated"}}};
  const std::string as{req["Impersonate-User"]};
  if (as.empty()) return user;
  const auto groups = user["groups"];
  if (std::find(groups.begin(), groups.end(), "system:masters") == groups.end())
    return {{"forbidden", "users \"" + as + "\" is forbidden: User \"" + user["username"].get<std::string>() +
                              "\" cannot impersonate resource \"users\" in API group \"\" at the cluster scope"}};
  json as_groups = json::array();
  for (const auto& f : req)
    if (beast::iequals(f.name_string(), "Impersonate-Group")) as_groups.push_back(std::string{f.value()});
  as_groups.push_back("system:authenticated");
  return {{"username", as}, {"groups", as_groups}};
}

simulator::~simulator() { stop(); }

std::uint16_t simulator::start() {
  if (impl_->started) return impl_->port;
  auto addr = asio::ip::make_address(impl_->opts.address);
  impl_->acceptor = std::make_unique<tcp::acceptor>(impl_->ioc, tcp::endpoint{addr, impl_->opts.port});
  impl_->port = impl_->acceptor->local_endpoint().port();
  impl_->started = true;
  impl_->accept_thread = std::thread([this] { impl_->accept_loop(); });
  return impl_->port;
}

void simulator::stop() {
  if (!impl_->started || impl_->stopping.exchange(true)) return;
  // Wakes the blocking accept() (Linux returns EINVAL after shutdown on a listening socket).
  ::shutdown(impl_->acceptor->native_handle(), SHUT_RDWR);
  impl_->accept_thread.join();
  beast::error_code ec;
  impl_->acceptor->close(ec);
  std::list<std::unique_ptr<connection>> conns;
  {
    std::lock_guard lock{impl_->m};
    for (auto& c : impl_->conns) hard_close(*c->sock);
    conns.swap(impl_->conns);
  }
  impl_->db.wake();
  for (auto& c : conns) c->thread.join();
}

std::uint16_t simulator::port() const { return impl_->port; }
std::string simulator::url() const {
  const std::string host = impl_->opts.address.find(':') != std::string::npos ? "[" + impl_->opts.address + "]"
                                                                              : impl_->opts.address;
  return "http://" + host + ":" + std::to_string(impl_->port);
}

void simulator::drop_watches() {
  ++impl_->drop_gen;
  impl_->db.wake();
}

void simulator::compact() { impl_->db.compact(); }

void simulator::set_failure_rule(failure_rule rule) {
  std::lock_guard lock{impl_->m};
  impl_->failure = std::move(rule);
}

void simulator::set_rbac(std::optional<rbac_enforcement> rbac) {
  std::lock_guard lock{impl_->m};
  impl_->rbac.clear();
  if (rbac) impl_->rbac.push_back(std::move(*rbac));
}

void simulator::add_rbac(rbac_enforcement rbac) {
  std::lock_guard lock{impl_->m};
  impl_->rbac.push_back(std::move(rbac));
}

std::optional<json> simulator::impl::escalation(const rbac_enforcement& e,
                                                const request_attributes& a,
                                                const std::string& body) {
  const bool writes = a.verb == "create" || a.verb == "update" || a.verb == "patch";
  if (!writes || a.api_group != "rbac.authorization.k8s.io" || !a.subresource.empty() ||
      (a.resource != "roles" && a.resource != "rolebindings"))
    return std::nullopt;
  auto object = json::parse(body, nullptr, false);
  if (!object.is_object()) return std::nullopt;  // the store answers the bad body
  std::vector<policy_rule> granted;
  if (a.resource == "roles") {
    granted = rules_of_role(object);
  } else {
    const auto ref = object.value("roleRef", json::object());
    if (ref.value("kind", "") != "Role") return std::nullopt;  // ClusterRoles: not modelled
    resource_path rp;
    rp.group = "rbac.authorization.k8s.io";
    rp.version = "v1";
    rp.plural = "roles";
    rp.ns = a.ns;
    rp.name = ref.value("name", "");
    auto role = db.get(rp);
    if (role.status != 200) return std::nullopt;  // binding a missing Role grants nothing
    granted = rules_of_role(role.body);
  }
  auto missing = escalations(e.policy, a.ns, granted);
  if (missing.empty()) return std::nullopt;
  std::string held;
  for (const auto& m : missing) held += (held.empty() ? "" : ", ") + m;
  auto st = forbidden_status(a, e.user);
  st["message"] = st["message"].get<std::string>() +
                  ": attempting to grant RBAC permissions not currently held: " + held;
  return st;
}

std::vector<denial> simulator::denials() const {
  std::lock_guard lock{impl_->m};
  return impl_->denied;
}

std::vector<write_record> simulator::writes() const {
  std::lock_guard lock{impl_->m};
  return impl_->writes;
}

std::size_t simulator::open_watches() const { return impl_->watches.load(); }
std::uint64_t simulator::resource_version() const { return impl_->db.current_rv(); }

std::string simulator::write_kubeconfig(const std::string& dir) const {
  const std::string path = dir + "/kubeconfig";
  std::ofstream f{path};
  f << "apiVersion: v1\nkind: Config\n"
    << "clusters:\n- name: kube-sim\n  cluster:\n    server: " << url() << "\n"
    << "contexts:\n- name: kube-sim\n  context:\n    cluster: kube-sim\n    user: kube-sim\n"
    << "    namespace: default\n"
    << "current-context: kube-sim\n"
    << "users:\n- name: kube-sim\n  user:\n    token: kube-sim-token\n";
  return path;
}

void simulator::impl::accept_loop() {
  while (!stopping) {
    auto sock = std::make_shared<tcp::socket>(ioc);
    beast::error_code ec;
    acceptor->accept(*sock, ec);
    if (stopping) {
      if (!ec) hard_close(*sock);
      return;
    }
    if (ec) continue;
    std::lock_guard lock{m};
    // Reap finished connections.
    for (auto it = conns.begin(); it != conns.end();) {
      if ((*it)->done) {
        (*it)->thread.join();
        it = conns.erase(it);
      } else {
        ++it;
      }
    }
    auto c = std::make_unique<connection>();
    c->sock = sock;
    auto* raw = c.get();
    conns.push_back(std::move(c));
    raw->thread = std::thread([this, raw] { serve(*raw); });
  }
}

void simulator::impl::serve(connection& c) {
  beast::flat_buffer buffer;
  while (!stopping) {
    bhttp::request_parser<bhttp::string_body> parser;
    parser.body_limit(64u << 20);
    beast::error_code ec;
    bhttp::read(*c.sock, buffer, parser, ec);
    if (ec) break;
    if (!handle(*c.sock, parser.get())) break;
  }
  beast::error_code ignored;
  c.sock->shutdown(tcp::socket::shutdown_both, ignored);
  c.sock->close(ignored);
  c.done = true;
}

api_result simulator::impl::route(const bhttp::request<bhttp::string_body>& req,
                                  const br::http::parsed_target& target, std::string& content_type,
                                  std::string& raw, bool& watch_requested, resource_path& rp) {
  const auto seg = split_path(target.path);
  const std::string method{req.method_string()};
  const auto n = seg.size();
  auto not_found = [] { return status_error(404, "NotFound", "the server could not find the requested resource"); };
  if (n == 0) return not_found();
  if (method == "GET") {
    if (n == 1 && seg[0] == "api") return {200, core_versions()};
    if (n == 1 && seg[0] == "apis") return {200, group_list(db.types())};
    if (n == 2 && seg[0] == "apis") {
      auto g = group(db.types(), seg[1]);
      return g ? api_result{200, *g} : not_found();
    }
    if ((n == 2 && seg[0] == "api") || (n == 3 && seg[0] == "apis")) {
      auto l = n == 2 ? resource_list(db.types(), "", seg[1]) : resource_list(db.types(), seg[1], seg[2]);
      return l ? api_result{200, *l} : not_found();
    }
    if (n == 2 && seg[0] == "openapi" && seg[1] == "v2") {
      content_type = "application/com.github.proto-openapi.spec.v2.v1.0+protobuf";
      raw = openapi_v2_protobuf();
      return {200, nullptr};
    }
    if (n == 2 && seg[0] == "openapi" && seg[1] == "v3") return {200, openapi_v3_root()};
    if (n == 1 && seg[0] == "version") return {200, version_info()};
    if (n == 1 && (seg[0] == "healthz" || seg[0] == "livez" || seg[0] == "readyz")) {
      content_type = "text/plain; charset=utf-8";
      raw = "ok";
      return {200, nullptr};
    }
  }
  // Resource paths: /api/v1/... or /apis/<group>/<version>/...
  std::size_t at;
  if (seg[0] == "api" && n >= 3) {
    rp.version = seg[1];
    at = 2;
  } else if (seg[0] == "apis" && n >= 4) {
    rp.group = seg[1];
    rp.version = seg[2];
    at = 3;
  } else {
    return not_found();
  }
  std::vector<std::string> rest(seg.begin() + static_cast<std::ptrdiff_t>(at), seg.end());
  if (rest.size() >= 3 && rest[0] == "namespaces" &&
      !(rest.size() == 3 && (rest[2] == "status" || rest[2] == "finalize"))) {
    rp.ns = rest[1];
    rest.erase(rest.begin(), rest.begin() + 2);
  }
  if (rest.empty() || rest.size() > 3) return not_found();
  rp.plural = rest[0];
  if (rest.size() >= 2) rp.name = rest[1];
  if (rest.size() == 3) rp.sub = rest[2];
  auto type = db.find_type(rp.group, rp.version, rp.plural);
  if (!type) return not_found();
  if (auto fv = target.query.find("fieldValidation"); fv != target.query.end()) rp.strict_fields = fv->second == "Strict";
  if (!type->namespaced && !rp.ns.empty()) return not_found();
  if (!rp.sub.empty() && (rp.sub != "status" || !type->status_subresource)) return not_found();
  if (type->namespaced && rp.ns.empty() && !rp.name.empty()) return not_found();

  auto parse_body = [&](json& out) -> bool {
    try {
      out = json::parse(req.body());
      return true;
    } catch (const std::exception&) {
      return false;
    }
  };
  if (method == "GET") {
    if (rp.name.empty()) {
      auto w = target.query.find("watch");
      if (w != target.query.end() && (w->second == "true" || w->second == "1")) {
        watch_requested = true;
        return {200, nullptr};
      }
      return db.list(rp, target.query);
    }
    return db.get(rp);
  }
  auto bad_body = [] { return status_error(400, "BadRequest", "the body of the request could not be decoded as JSON"); };
  if (method == "POST" && rp.name.empty()) {
    json body;
    if (!parse_body(body)) return bad_body();
    return db.create(rp, std::move(body));
  }
  if (method == "PUT" && !rp.name.empty()) {
    json body;
    if (!parse_body(body)) return bad_body();
    return db.replace(rp, std::move(body));
  }
  if (method == "PATCH" && !rp.name.empty()) {
    return db.patch(rp, std::string{req[bhttp::field::content_type]}, req.body());
  }
  if (method == "DELETE" && !rp.name.empty()) {
    json options = json::object();
    if (!req.body().empty() && (!parse_body(options) || !options.is_object())) return bad_body();
    auto pp = target.query.find("propagationPolicy");
    return db.remove(rp, options, pp == target.query.end() ? std::string{} : pp->second);
  }
  return status_error(405, "MethodNotAllowed", "the server does not allow this method on the requested resource");
}

bool simulator::impl::handle(tcp::socket& s, const bhttp::request<bhttp::string_body>& req) {
  const auto received = steady::now();
  const auto drop_at_receipt = drop_gen.load();  // drop_watches() also ends watches being set up
  const auto wall = std::chrono::system_clock::now();
  const std::string method{req.method_string()};
  auto target = br::http::parse_target(std::string{req.target()});
  std::string content_type = "application/json";
  std::string raw;
  bool watch_requested = false;
  resource_path rp;
  api_result r;
  int injected = 0;
  std::optional<json> forbidden;
  {
    std::lock_guard lock{m};
    const std::string identity{req[identity_header]};
    if (failure && target) injected = failure(method, target->path, identity);
    auto e = std::find_if(rbac.begin(), rbac.end(), [&](const rbac_enforcement& x) {
      return std::find(x.identities.begin(), x.identities.end(), identity) != x.identities.end();
    });
    rp.user_info = user_of(req, e == rbac.end() ? nullptr : &*e);
    if (rp.user_info.contains("forbidden")) {
      forbidden = status_error(403, "Forbidden", rp.user_info["forbidden"].get<std::string>()).body;
      rp.user_info = json::object();
    }
    if (!forbidden && e != rbac.end() && target) {
      auto w = target->query.find("watch");
      auto a = attributes_of(method, target->path,
                             w != target->query.end() && (w->second == "true" || w->second == "1"));
      if (a && !allows(e->policy, *a))
        forbidden = forbidden_status(*a, e->user);
      else if (a)
        forbidden = escalation(*e, *a, req.body());
      if (forbidden)
        denied.push_back({identity, method, target->path, *a, (*forbidden)["message"].get<std::string>()});
    }
  }
  if (!target) {
    r = status_error(400, "BadRequest", "malformed request target");
  } else if (forbidden) {
    r = {403, std::move(*forbidden)};
  } else if (injected != 0) {
    r = status_error(injected, injected == 429 ? "TooManyRequests" : injected == 503 ? "ServiceUnavailable" : "InternalError",
                     "injected failure");
  } else {
    try {
      r = route(req, *target, content_type, raw, watch_requested, rp);
    } catch (const std::exception& e) {
      r = status_error(500, "InternalError", std::string{"simulator error: "} + e.what());
    }
  }
  if (watch_requested) {
    auto type = db.find_type(rp.group, rp.version, rp.plural);
    if (type) return watch(s, *type, rp, target->query, drop_at_receipt);
    r = status_error(404, "NotFound", "the server could not find the requested resource");
  }
  if (method == "POST" || method == "PUT" || method == "PATCH" || method == "DELETE") {
    write_record w;
    w.wall = wall;
    w.mono = received;
    w.verb = method;
    w.path = target ? target->path : std::string{req.target()};
    w.user_agent = std::string{req[bhttp::field::user_agent]};
    w.identity = std::string{req[identity_header]};
    w.status = r.status;
    if (r.body.is_object() && r.body.contains("metadata"))
      w.resource_version = r.body["metadata"].value("resourceVersion", std::string{});
    w.object = r.body;
    std::lock_guard lock{m};
    writes.push_back(std::move(w));
  }
  bhttp::response<bhttp::string_body> res{static_cast<bhttp::status>(r.status), req.version()};
  res.set(bhttp::field::server, "kube-sim");
  res.set(bhttp::field::content_type, content_type);
  res.set(bhttp::field::cache_control, "no-cache, private");
  res.body() = raw.empty() && !r.body.is_null() ? r.body.dump() : raw;
  res.keep_alive(req.keep_alive());
  res.prepare_payload();
  beast::error_code ec;
  bhttp::write(s, res, ec);
  return !ec && req.keep_alive();
}

bool simulator::impl::watch(tcp::socket& s, const resource_type& t, const resource_path& p,
                            const std::map<std::string, std::string>& query,
                            std::uint64_t drop_at_receipt) {
  auto q = [&](const char* k) {
    auto it = query.find(k);
    return it == query.end() ? std::string{} : it->second;
  };
  auto fail = [&](api_result r) {
    bhttp::response<bhttp::string_body> res{static_cast<bhttp::status>(r.status), 11};
    res.set(bhttp::field::content_type, "application/json");
    res.body() = r.body.dump();
    res.keep_alive(false);
    res.prepare_payload();
    beast::error_code ec;
    bhttp::write(s, res, ec);
    return false;
  };
  std::string err;
  view_filter f;
  f.ns = p.ns;
  auto ls = parse_label_selector(q("labelSelector"), err);
  if (!ls) return fail(status_error(400, "BadRequest", "unable to parse requirement: " + err));
  auto fs = parse_field_selector(q("fieldSelector"), err);
  if (!fs) return fail(status_error(400, "BadRequest", err));
  f.labels = *ls;
  f.fields = *fs;
  const std::string rv = q("resourceVersion");
  std::uint64_t cursor = 0;
  if (!rv.empty() && rv != "0") {
    try {
      cursor = std::stoull(rv);
    } catch (const std::exception&) {
      return fail(status_error(400, "BadRequest", "invalid resource version: " + rv));
    }
  }
  const bool bookmarks = q("allowWatchBookmarks") == "true";
  int timeout_s = 1800;
  if (!q("timeoutSeconds").empty()) timeout_s = std::stoi(q("timeoutSeconds"));
  const auto deadline = steady::now() + std::chrono::seconds{timeout_s};

  const std::string header =
      "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nCache-Control: no-cache, private\r\n"
      "Transfer-Encoding: chunked\r\nServer: kube-sim\r\n\r\n";
  beast::error_code ec;
  asio::write(s, asio::buffer(header), ec);
  if (ec) return false;
  ++watches;
  struct guard {
    std::atomic<std::size_t>& n;
    ~guard() { --n; }
  } g{watches};
  auto send = [&](const json& ev) {
    const std::string line = ev.dump() + "\n";
    char len[32];
    std::snprintf(len, sizeof len, "%zx\r\n", line.size());
    const std::string chunk = std::string{len} + line + "\r\n";
    asio::write(s, asio::buffer(chunk), ec);
    return !ec;
  };
  auto finish = [&] {
    asio::write(s, asio::buffer(std::string{"0\r\n\r\n"}), ec);
    return false;
  };
  const auto my_drop = drop_at_receipt;
  if (rv.empty() || rv == "0") {
    for (const auto& obj : db.snapshot(t, p.version, f, cursor))
      if (!send({{"type", "ADDED"}, {"object", obj}})) return false;
  }
  auto next_bookmark = steady::now() + opts.bookmark_interval;
  for (;;) {
    if (stopping || drop_gen.load() != my_drop) {
      hard_close(s);  // abrupt: no terminating chunk
      return false;
    }
    auto w = db.changes_after(cursor);
    if (w.gone) {
      auto st = status_error(410, "Expired", "too old resource version: " + std::to_string(cursor) + " (" +
                                                 std::to_string(w.current) + ")");
      send({{"type", "ERROR"}, {"object", st.body}});
      return finish();
    }
    for (const auto& c : w.changes) {
      if (c->type_key != t.key()) continue;
      const std::string type = visible_type(*c, f);
      if (type.empty()) continue;
      json obj = c->object;
      obj["apiVersion"] = t.api_version(p.version);
      obj["kind"] = t.kind;
      if (!send({{"type", type}, {"object", obj}})) return false;
    }
    cursor = w.current;
    const auto now = steady::now();
    if (now >= deadline) return finish();
    if (bookmarks && now >= next_bookmark) {
      json bm = {{"type", "BOOKMARK"},
                 {"object", {{"kind", t.kind},
                             {"apiVersion", t.api_version(p.version)},
                             {"metadata", {{"resourceVersion", std::to_string(cursor)}}}}}};
      if (!send(bm)) return false;
      next_bookmark = now + opts.bookmark_interval;
    }
    auto until = std::min(deadline, bookmarks ? next_bookmark : now + std::chrono::seconds{1});
    db.wait_change(cursor, until);
  }
}

}  // namespace br::kube_sim
