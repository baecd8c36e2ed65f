// libFuzzer target: the network-facing request handling of the operator and the sidecar.
//
// Input layout: byte 0 picks the entry point (low nibble, modulo the number of modes) and who
// signs (bits 4-6: 1 operator, 2 site east, 3 site west, 4 a key nobody accepts, else the
// signature header is taken from the input as is); bit 7 spells the signature header in lower
// case. The rest is split on NUL bytes into
//   A  method (requests) or HTTP status (answers; empty = 200)
//   B  request target (requests) or the nonce the reader expects (answers)
//   C  X-Bloodraven-Signature value (absent when the input has fewer than three NULs)
//   D  body: everything after the third NUL. "\xfe" <n> <c> in the body expands to
//      (n + 1) * 1024 copies of byte c, and "\xfd" <n> to (n + 1) * 1024 '[' then as many ']',
//      so short inputs can build large or deeply nested bodies (the expanded body is capped at
//      what the transport, or for the bare view parsers the shape checks, admit).
// When the harness signs (bits 4-6 = 1..4), it signs the expanded body for the entry point's
// purpose and group "db/orders" with that fixed key, so the fuzzer gets past the signature
// checks. For the operator's routes, bits 4-6 = 7 also empties the group table (startup).
//
// The keys are fixed (crypto::key_from_seed): BR_FUZZ_SEEDS=<dir> writes validly signed seeds
// into <dir> and BR_FUZZ_DICT=<file> appends the key ids to a dictionary, then the process
// exits (tools/fuzz.sh does both for an empty corpus).
//
// Nothing here catches an exception: one escaping a handler or parser is a finding.
// -DBR_FUZZ_SELFTEST plants a heap overflow behind an accepted, signed report with particular
// values (check_report_outcome), to check that the fuzzer reaches code behind the signatures.
#include <caf/actor_system.hpp>
#include <caf/actor_system_config.hpp>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <memory>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "actors/common/authority.hpp"
#include "actors/common/view_json.hpp"
#include "actors/operator/api/operator_api.hpp"
#include "actors/operator/api/pitr_status.hpp"
#include "actors/operator/group/view_push.hpp"
#include "actors/sidecar/common/sidecar_handles.hpp"
#include "actors/sidecar/fencing/signed_answers.hpp"
#include "actors/sidecar/runtime/sidecar_api.hpp"
#include "io/codec/json_limits.hpp"
#include "io/crypto/ed25519.hpp"
#include "io/http/message.hpp"
#include "io/http/router.hpp"

namespace {

using nlohmann::json;
namespace http = br::http;
namespace auth = br::auth;
namespace crypto = br::crypto;

// abort() rather than assert(): the check must also fire in builds with NDEBUG.
void check(bool ok, const char* what) {
  if (!ok) {
    std::fprintf(stderr, "http_fuzz invariant failed: %s\n", what);
    std::abort();
  }
}

constexpr const char* ns = "db";
constexpr const char* group_name = "orders";
constexpr const char* group = "db/orders";  // auth::group_key(ns, group_name)
constexpr const char* nonce_seed = "0123456789abcdef0123456789abcdef";

// What the transport admits (io/http/server.hpp default and the operator's --http-max-body
// default; the sidecar's server; actors/common/http_worker.cpp for answers).
constexpr std::size_t operator_request_cap = 1u << 20;
constexpr std::size_t sidecar_request_cap = 64u << 10;
constexpr std::size_t answer_cap = 1u << 20;
constexpr std::size_t parsed_view_cap = 16u << 10;

crypto::signing_key fixed_key(char fill) {
  auto k = crypto::key_from_seed(std::string(32, fill));
  check(k.has_value(), "key_from_seed failed");
  return *k;
}

/// The fixed world: an operator, sites east and west, a stranger, and one actor system (only
/// handed to the route installers: every handle is null, so no handler spawns anything).
struct world {
  crypto::signing_key op = fixed_key('o');
  crypto::signing_key east = fixed_key('e');
  crypto::signing_key west = fixed_key('w');
  crypto::signing_key stranger = fixed_key('s');
  std::shared_ptr<const auth::key_ring> operator_ring;
  std::shared_ptr<const auth::key_ring> east_ring;
  std::shared_ptr<const auth::key_ring> west_ring;
  br::sidecar::authority east_auth;  // the sidecar under test
  br::sidecar::authority west_auth;  // its peer (builds seeds)
  br::sidecar::authority no_keys;    // a sidecar without keys: accepts nothing
  caf::actor_system_config cfg;
  std::unique_ptr<caf::actor_system> sys;
  http::router sidecar_routes[2];  // [archiver_enabled]

  world() {
    auto ring = [](std::optional<crypto::signing_key> signer, std::vector<crypto::verify_key> ops,
                   std::map<std::string, std::vector<crypto::verify_key>> sites) {
      auto r = std::make_shared<auth::key_ring>();
      r->signer = std::move(signer);
      r->operator_keys = std::move(ops);
      r->site_keys = std::move(sites);
      return std::shared_ptr<const auth::key_ring>(std::move(r));
    };
    operator_ring = ring(op, {op.pub}, {{"east", {east.pub}}, {"west", {west.pub}}});
    east_ring = ring(east, {op.pub}, {{"west", {west.pub}}});
    west_ring = ring(west, {op.pub}, {{"east", {east.pub}}});
    east_auth = {east_ring, group, "east"};
    west_auth = {west_ring, group, "west"};
    no_keys = {nullptr, group, "east"};
    sys = std::make_unique<caf::actor_system>(cfg);
    for (int archiver = 0; archiver < 2; ++archiver) {
      br::sidecar::api_options o;
      o.site = "east";
      o.auth = east_auth;
      o.archiver_enabled = archiver == 1;
      br::sidecar::install_sidecar_routes(sidecar_routes[archiver], *sys, o,
                                          std::make_shared<br::sidecar::sidecar_handles>());
    }
  }
};

world* W = nullptr;  // never destroyed: the actor system lives until exit

enum mode : uint8_t {
  operator_router,
  sidecar_router,
  report,
  push,
  operator_answer,
  peer_answer,
  view_ack,
  held_view,
  shape,
  view_parsers,
  mode_count
};

struct input {
  mode m = operator_router;
  int signer = 0;
  bool lower_header = false;
  std::string a, b;
  std::optional<std::string> c;
  std::string d;
};

/// "\xfe" n c -> (n + 1) * 1024 copies of c; "\xfd" n -> (n + 1) * 1024 '[' then as many ']';
/// nullopt when the result exceeds `cap`.
std::optional<std::string> expand(std::string_view in, std::size_t cap) {
  std::string out;
  for (std::size_t i = 0; i < in.size(); ++i) {
    if (in[i] == '\xfd' && i + 1 < in.size()) {
      std::size_t n = (static_cast<unsigned char>(in[i + 1]) + 1u) * 1024u;
      if (out.size() + 2 * n > cap) return std::nullopt;
      out.append(n, '[');
      out.append(n, ']');
      i += 1;
    } else if (in[i] == '\xfe' && i + 2 < in.size()) {
      std::size_t n = (static_cast<unsigned char>(in[i + 1]) + 1u) * 1024u;
      if (out.size() + n > cap) return std::nullopt;
      out.append(n, in[i + 2]);
      i += 2;
    } else {
      out.push_back(in[i]);
    }
    if (out.size() > cap) return std::nullopt;
  }
  return out;
}

std::optional<input> split(const uint8_t* data, std::size_t size) {
  if (size == 0) return std::nullopt;
  input in;
  in.m = static_cast<mode>((data[0] & 0x0f) % mode_count);
  in.signer = (data[0] >> 4) & 7;
  in.lower_header = (data[0] & 0x80) != 0;
  std::string_view rest(reinterpret_cast<const char*>(data + 1), size - 1);
  std::string* fields[] = {&in.a, &in.b};
  for (std::string* f : fields) {
    auto z = rest.find('\0');
    *f = std::string(rest.substr(0, z));
    rest = z == std::string_view::npos ? std::string_view{} : rest.substr(z + 1);
    if (z == std::string_view::npos) return in;
  }
  auto z = rest.find('\0');
  if (z == std::string_view::npos) {
    in.c = std::string(rest);  // a header but no body
    return in;
  }
  in.c = std::string(rest.substr(0, z));
  // The parsers alone see what their callers let through: pushes are at most 4 KiB, answers
  // 16 KiB (the shape checks in front of them); the rest sees what the transport admits.
  std::size_t cap = in.m == sidecar_router || in.m == push      ? sidecar_request_cap
                    : in.m == operator_router || in.m == report ? operator_request_cap
                    : in.m == view_parsers                      ? parsed_view_cap
                                                                : answer_cap;
  auto body = expand(rest.substr(z + 1), cap);
  if (!body) return std::nullopt;
  in.d = std::move(*body);
  return in;
}

const crypto::signing_key* signer_of(int s) {
  switch (s) {
    case 1:
      return &W->op;
    case 2:
      return &W->east;
    case 3:
      return &W->west;
    case 4:
      return &W->stranger;
    default:
      return nullptr;
  }
}

/// The signature the reader sees: the input's field C, or the harness's own signature.
std::optional<std::string> signature_for(const input& in, auth::purpose p) {
  if (auto* k = signer_of(in.signer)) return auth::sign_body(*k, p, group, in.d);
  return in.c;
}

int status_of(const std::string& a) {
  if (a.empty()) return 200;
  if (a.size() > 4) return 0;
  int s = 0;
  for (char c : a) {
    if (c < '0' || c > '9') return 0;
    s = s * 10 + (c - '0');
  }
  return s;
}

br::http_reply reply_of(const input& in, auth::purpose p) {
  br::http_reply r;
  r.status = status_of(in.a);
  if (r.status == 0) r.error = "refused: connection refused";
  r.body = in.d;
  r.signature = signature_for(in, p).value_or("");
  return r;
}

/// Nesting depth of a parsed document, without recursion.
std::size_t depth_of(const json& j) {
  std::size_t deepest = 0;
  std::vector<std::pair<const json*, std::size_t>> todo{{&j, 0}};
  while (!todo.empty()) {
    auto [x, d] = todo.back();
    todo.pop_back();
    if (!x->is_structured()) continue;
    deepest = std::max(deepest, d + 1);
    for (const auto& child : *x) todo.emplace_back(&child, d + 1);
  }
  return deepest;
}

bool four_digit_year(int64_t unix_ms) {
  using namespace std::chrono;
  auto lo = duration_cast<milliseconds>(sys_days{year{0} / 1 / 1}.time_since_epoch()).count();
  auto hi = duration_cast<milliseconds>(sys_days{year{10000} / 1 / 1}.time_since_epoch()).count();
  return unix_ms >= lo && unix_ms < hi;
}

bool same_signed_fields(const br::topology_view& x, const br::topology_view& y) {
  return x.epoch == y.epoch && x.active_site == y.active_site && x.deposing == y.deposing &&
         x.signature == y.signature;
}

/// Every JSON answer is valid JSON (error texts may carry raw bytes: they must be replaced).
void check_response(const http::response& r) {
  check(r.status >= 100 && r.status <= 599, "status out of range");
  if (r.content_type == "application/json") {
    check(json::accept(r.body), "application/json response is not valid JSON");
    if (r.status >= 400) {
      auto j = json::parse(r.body);
      check(j.is_object() && j.contains("error") && j["error"].is_string(),
            "error response without an error text");
    }
  }
}

bool is_one_of(int s, std::initializer_list<int> set) {
  for (int x : set)
    if (s == x) return true;
  return false;
}

http::request request_of(const input& in, std::optional<std::string> sig) {
  http::request req;
  req.method = in.a;
  req.target = in.b;
  if (auto t = http::parse_target(in.b)) {
    req.path = t->path;
    req.query = t->query;
  }
  if (sig)
    req.headers.emplace_back(in.lower_header ? "x-bloodraven-signature" : auth::signature_header,
                             *sig);
  req.headers.emplace_back("Content-Type", "application/json");
  req.body = in.d;
  req.remote_address = "192.0.2.1";
  return req;
}

// --- the operator ----------------------------------------------------------------------------

std::shared_ptr<br::group_table> fresh_groups() {
  auto g = std::make_shared<br::group_table>();
  g->track(ns, group_name, br::child_spec{}, W->operator_ring, {"east", "west"});
  g->track(ns, "nokeys", br::child_spec{}, nullptr, {"east"});
  g->track("other", group_name, br::child_spec{}, W->operator_ring, {});
  return g;
}

std::size_t recorded(const br::group_table& g) {
  std::size_t n = 0;
  for (const auto& e : g.groups()) n += g.reports(e.namespace_name + "/" + e.group).size();
  return n;
}

/// After POST /sidecar/report answered `res`: a 200 recorded exactly one report, verified; a
/// refusal (4xx) recorded nothing; a replay of an accepted report is refused.
void check_report_outcome(br::group_table& g, const http::request& req, const http::response& res,
                          bool replay) {
  check_response(res);
  if (res.status != 200) {
    check(is_one_of(res.status, {400, 401, 404, 409, 413}), "report refusal is not a known 4xx");
    check(recorded(g) == 0, "refused report was recorded");
    if (replay) {
      auto again = br::handle_report(g, req);
      check(again.status == res.status, "refused report answered differently the second time");
      check(recorded(g) == 0, "refused report was recorded on replay");
    }
    return;
  }
  check(req.body.size() <= br::report_limits.max_bytes, "oversized report accepted");
  check(br::json_shape_problem(req.body, br::report_limits).empty(), "misshapen report accepted");
  auto j = json::parse(req.body);  // throws (a finding) if an accepted body does not parse
  check(depth_of(j) <= br::report_limits.max_depth, "shape check let a deeper report through");
  auto site = j.at("site").get<std::string>();
  auto key = j.at("namespace").get<std::string>() + "/" + j.at("group").get<std::string>();
  check(key == group, "report accepted for a group without keys");
  auto sig = req.header(auth::signature_header);
  check(sig.has_value() && auth::body_verifies(W->operator_ring->keys_of_site(site),
                                               auth::purpose::report, group, req.body, *sig),
        "report accepted without its site's signature");
  if (j.contains("kind")) {
    // A Group Replication doorbell (gr-observed): a wake-up, never recorded as a report.
    check(j.at("kind") == "gr-observed", "report of an unknown kind accepted");
    check(json::parse(res.body).value("wake", false), "accepted doorbell did not ask for a wake");
    check(recorded(g) == 0, "doorbell recorded as a report");
    if (replay) {
      auto again = br::handle_report(g, req);
      check(again.status == 409, "replayed doorbell not refused with 409");
    }
    return;
  }
  auto reports = g.reports(key);
  check(recorded(g) == 1 && reports.count(site) == 1, "accepted report not recorded once");
  const auto& rec = reports[site];
  check(rec.at("epochSeen") == j.at("epochSeen") && rec.at("fenced") == j.at("fenced"),
        "recorded report differs from the body");
  // What /status folds from the recorded reports.
  auto pitr = br::pitr_status_of(reports);
  check(pitr.is_null() || pitr.is_object(), "pitr status neither null nor an object");
#ifdef BR_FUZZ_SELFTEST
  // Planted heap overflow behind the shape, field, group, site, signature and ordering checks:
  // an accepted report of west that saw an epoch after 7 (the seeds report epoch 7).
  if (site == "west" && j.at("epochSeen").get<uint64_t>() > 7) {
    volatile char* p = new char[4];
    p[4] = 1;
    delete[] p;
  }
#endif
  if (replay) {
    auto again = br::handle_report(g, req);
    check(again.status == 409, "replayed report not refused with 409");
    check(recorded(g) == 1, "replayed report changed the table");
  }
}

// --- routing ---------------------------------------------------------------------------------

/// What io/http/session.cpp does with a request: parse the target, match the route, run the
/// handler. Every handle in the fuzz world is null, so every handler must answer at once.
std::optional<http::response> dispatch(const http::router& r, const http::request& req) {
  auto t = http::parse_target(req.target);
  if (!t) return std::nullopt;  // 400 malformed request target
  check(!t->path.empty() && t->path[0] == '/', "parsed path does not start with '/'");
  auto m = r.find(req.method, t->path);
  check(!m.name.empty(), "route match without a metrics name");
  if (m.kind == http::router::outcome::not_found) {
    check(m.found == nullptr, "not_found with a route");
    check_response(http::response::json(404, json{{"error", "not found"}, {"path", t->path}}));
    return std::nullopt;
  }
  if (m.kind == http::router::outcome::method_not_allowed) {
    check(m.found == nullptr && !m.allow.empty(), "405 without an Allow list");
    for (std::string_view rest = m.allow; !rest.empty();) {
      auto comma = rest.find(", ");
      auto verb = rest.substr(0, comma);
      check(verb != req.method && !(req.method == "HEAD" && verb == "GET"),
            "405 for a method the Allow list names");
      rest = comma == std::string_view::npos ? std::string_view{} : rest.substr(comma + 2);
    }
    check_response(http::response::json(
        405, json{{"error", "method not allowed"}, {"method", req.method}, {"allow", m.allow}}));
    return std::nullopt;
  }
  check(m.found != nullptr && m.found->path == t->path, "found route for another path");
  check(m.found->method == req.method || (req.method == "HEAD" && m.found->method == "GET"),
        "found route for another method");
  if (!m.found->on_request) return std::nullopt;  // 426 upgrade required
  struct slot {
    std::optional<http::response> res;
    int calls = 0;
  };
  auto got = std::make_shared<slot>();
  http::responder reply([got](http::response&& res) {
    ++got->calls;
    got->res = std::move(res);
  });
  m.found->on_request(req, reply);
  check(got->calls == 1 && got->res.has_value(),
        "handler did not answer synchronously (fuzz world has no actors)");
  reply(http::response::text(500, "second answer"));  // the responder answers once
  check(got->calls == 1, "responder delivered twice");
  check_response(*got->res);
  return got->res;
}

void run_operator_router(const input& in) {
  auto g = in.signer == 7 ? std::make_shared<br::group_table>() : fresh_groups();
  br::operator_api_options o;
  o.groups = g;
  o.pitr = [](const std::string&, const std::string&, const std::string& profile) {
    br::pitr_answer a;
    if (profile == "fail") {
      a.ok = false;
      a.error = "listing failed";
    } else if (profile != "none") {
      a.has_cutoff = true;
      a.cutoff_ms = 1700000000123;
    }
    return a;
  };
  http::router r;
  br::install_operator_routes(r, *W->sys, o);
  auto req = request_of(in, signature_for(in, auth::purpose::report));
  auto res = dispatch(r, req);
  if (!res) return;
  if (req.path == "/sidecar/report") {
    check_report_outcome(*g, req, *res, false);
  } else {
    check(recorded(*g) == 0, "a report recorded outside POST /sidecar/report");
  }
  if (req.path == "/active-site") {
    check(is_one_of(res->status, {400, 404, 503}), "/active-site answered unexpectedly");
    // The nonce is optional (scripts read the view without one); a sidecar's must be well formed.
    auto nonce = req.query_or("nonce");
    if (res->status != 400)
      check((nonce.empty() || auth::nonce_well_formed(nonce)) &&
                !req.query_or("namespace").empty() && !req.query_or("group").empty(),
            "/active-site accepted a malformed query");
  }
}

void run_report(const input& in) {
  auto g = fresh_groups();
  http::request req = request_of(in, signature_for(in, auth::purpose::report));
  req.method = "POST";
  req.target = req.path = "/sidecar/report";
  req.query.clear();
  auto res = br::handle_report(*g, req);
  check_report_outcome(*g, req, res, true);
}

// --- the sidecar -----------------------------------------------------------------------------

/// check_push's verdict: a refusal is 400/403/413; an acceptance is a bounded, flat, well-formed
/// push of a view the operator signed for this group.
void check_push_outcome(const http::request& req, const br::sidecar::push_check& c) {
  if (c.refusal) {
    check(is_one_of(c.refusal->status, {400, 403, 413}), "push refusal is not 400/403/413");
    check_response(*c.refusal);
    return;
  }
  check(req.body.size() <= 4096, "oversized push accepted");
  auto j = json::parse(req.body);
  check(depth_of(j) <= 2, "nested push accepted");
  check(auth::nonce_well_formed(c.nonce), "push accepted with a malformed nonce");
  check(auth::view_verifies({W->op.pub}, group, c.view),
        "push accepted without the operator's signature");
  auto p = br::parse_pushed_view(req.body);
  check(p.view.has_value() && same_signed_fields(*p.view, c.view) && p.nonce == c.nonce,
        "accepted push differs from its parse");
  // Cached and relayed as view_to_json: it must read back the same.
  auto back = br::parse_view_answer(br::view_to_json(c.view));
  check(back.has_value() && same_signed_fields(*back, c.view), "view_to_json does not read back");
}

void run_sidecar_router(const input& in) {
  const auto& r = W->sidecar_routes[in.lower_header ? 1 : 0];
  auto req = request_of(in, signature_for(in, auth::purpose::report));
  auto res = dispatch(r, req);
  if (!res) return;
  if (req.path == "/view") {
    check(is_one_of(res->status, {400, 403, 413, 503}), "PUT /view answered unexpectedly");
    // 503 = check_push accepted it and found no fencing monitor.
    auto c = br::sidecar::check_push(W->east_auth, req);
    check((res->status == 503) == !c.refusal, "PUT /view disagrees with check_push");
    check_push_outcome(req, c);
  }
  if (req.path == "/peer/active-site") {
    check(is_one_of(res->status, {400, 503}), "/peer/active-site answered unexpectedly");
    if (res->status != 400)
      check(auth::nonce_well_formed(req.query_or("nonce")), "/peer/active-site took a bad nonce");
  }
}

void run_push(const input& in) {
  auto req = request_of(in, std::nullopt);
  req.method = "PUT";
  req.target = req.path = "/view";
  req.query.clear();
  auto c = br::sidecar::check_push(W->east_auth, req);
  check_push_outcome(req, c);
  auto none = br::sidecar::check_push(W->no_keys, req);
  check(none.refusal.has_value(), "push accepted by a sidecar without keys");
}

void run_operator_answer(const input& in) {
  auto r = reply_of(in, auth::purpose::operator_answer);
  auto a = br::sidecar::read_operator_answer(W->east_auth, in.b, r);
  if (a.view) {
    check(r.status == 200, "operator answer adopted from a non-200");
    check(auth::body_verifies({W->op.pub}, auth::purpose::operator_answer, group, r.body,
                              r.signature),
          "operator answer adopted without the operator's signature");
    auto j = json::parse(r.body);
    check(j.at("nonce") == in.b, "operator answer adopted for another nonce");
    check(auth::view_verifies({W->op.pub}, group, *a.view), "adopted view not signed");
  } else {
    check(!a.error.empty(), "operator answer refused without a reason");
  }
  check(!br::sidecar::read_operator_answer(W->no_keys, in.b, r).view,
        "operator answer adopted by a sidecar without keys");
}

void run_peer_answer(const input& in) {
  auto r = reply_of(in, auth::purpose::peer_answer);
  auto a = br::sidecar::read_peer_answer(W->east_auth, in.b, r);
  if (a.view) check(auth::view_verifies({W->op.pub}, group, *a.view), "peer view not signed");
  if (a.fresh) {
    check(a.view.has_value() && r.status == 200, "fresh peer answer without a view");
    check(a.site != "east" && !a.site.empty(), "fresh peer answer from this site");
    check(auth::body_verifies(W->east_ring->keys_of_site(a.site), auth::purpose::peer_answer, group,
                              r.body, r.signature),
          "fresh peer answer without the site's signature");
    auto j = json::parse(r.body);
    check(j.at("nonce") == in.b && j.at("site") == a.site, "fresh peer answer for another request");
  }
  if (!a.fresh) check(!a.error.empty(), "peer answer not fresh without a reason");
  auto none = br::sidecar::read_peer_answer(W->no_keys, in.b, r);
  check(!none.view && !none.fresh, "peer answer adopted by a sidecar without keys");
}

br::topology_view pushed_view() {
  br::topology_view v;
  v.epoch = 7;
  v.active_site = "west";
  v.deposing = "east";
  v.observed_at_ms = 1700000000000;
  return auth::sign_view(W->op, group, v);
}

void run_view_ack(const input& in) {
  auto r = reply_of(in, auth::purpose::ack);
  auto pushed = pushed_view();
  const auto& keys = W->operator_ring->keys_of_site("east");
  auto a = br::parse_view_ack("east", pushed, in.b, keys, group, r);
  check(a.site == "east" && a.status == r.status, "ack names another site or status");
  check(!(a.acked && a.stale), "ack both acknowledged and stale");
  bool signed_ok = auth::body_verifies(keys, auth::purpose::ack, group, r.body, r.signature);
  if (a.acked || a.stale) check(signed_ok, "ack counted without the site's signature");
  if (a.acked) {
    check(r.status == 200 && a.epoch >= pushed.epoch && a.error.empty(), "bad acknowledgement");
    auto j = json::parse(r.body);
    check(j.at("nonce") == in.b && j.at("site") == "east", "ack for another push counted");
  }
  if (a.stale) check(r.status == 409, "stale without a 409");
  if (!a.acked) check(!a.error.empty(), "ack refused without a reason");
  // Read as west's answer, only west's key counts.
  const auto& west_keys = W->operator_ring->keys_of_site("west");
  auto other = br::parse_view_ack("west", pushed, in.b, west_keys, group, r);
  if (other.acked || other.stale)
    check(auth::body_verifies(west_keys, auth::purpose::ack, group, r.body, r.signature),
          "west's ack counted without west's signature");
}

void run_held_view(const input& in) {
  auto r = reply_of(in, auth::purpose::peer_answer);
  auto h = br::parse_held_view(r, {W->op.pub}, group);
  if (h.view) {
    check(r.status == 200 && h.answered, "held view from a non-200");
    check(auth::view_verifies({W->op.pub}, group, *h.view), "held view not signed");
  }
  if (r.status == 204) check(h.answered && !h.view, "204 misread");
  if (r.status != 200 && r.status != 204) check(!h.answered && !h.view, "error answer counted");
}

// --- JSON shape and view parsers ---------------------------------------------------------------

void run_shape(const input& in) {
  br::json_limits l;
  l.max_bytes = static_cast<std::size_t>(status_of(in.a.substr(0, 4))) * 16;
  l.max_depth = in.b.empty() ? 0 : static_cast<unsigned char>(in.b[0]) % 16;
  auto problem = br::json_shape_problem(in.d, l);
  if (!problem.empty()) return;
  check(in.d.size() <= l.max_bytes, "shape check passed an oversized body");
  auto j = json::parse(in.d, nullptr, false);
  if (!j.is_discarded()) check(depth_of(j) <= l.max_depth, "shape check passed a deeper body");
}

void run_view_parsers(const input& in) {
  auto p = br::parse_pushed_view(in.d);
  check(p.view.has_value() == p.error.empty(), "pushed view parse: view xor error");
  if (p.view) {
    auto j = json::parse(in.d);
    check(j.is_object(), "pushed view from a non-object");
    check(p.view->active_site.empty() || p.view->active_site != p.view->deposing,
          "pushed view deposes its active site");
    auto back = br::parse_view_answer(br::view_to_json(*p.view));
    check(back.has_value() && same_signed_fields(*back, *p.view),
          "view_to_json does not read back");
    auto strict = br::parse_pushed_view(br::view_to_json(*p.view));
    // view_to_json carries no nonce and omits an empty signature: only those may fail; and
    // observedAt, for times format_rfc3339 cannot write in four-digit years (an offset can
    // move 0000-01-01 or 9999-12-31 across the boundary; observedAt is not signed).
    check(strict.view.has_value() || strict.error.find("nonce") != std::string::npos ||
              strict.error.find("signature") != std::string::npos ||
              (strict.error.find("observedAt") != std::string::npos &&
               !four_digit_year(p.view->observed_at_ms)),
          "view_to_json is not a pushed view");
  }
  auto v = br::parse_view_answer(in.d);
  if (v) {
    auto back = br::parse_view_answer(br::view_to_json(*v));
    check(back.has_value() && same_signed_fields(*back, *v), "answer view does not read back");
  }
}

// --- seeds -----------------------------------------------------------------------------------

std::string seed(uint8_t first, std::initializer_list<std::string_view> fields) {
  std::string s(1, static_cast<char>(first));
  bool start = true;
  for (auto f : fields) {
    if (!start) s.push_back('\0');
    s.append(f);
    start = false;
  }
  return s;
}

std::string report_body(const std::string& site, uint64_t sent_at, bool archiver,
                        const std::string& of_group = group_name) {
  json j = {{"site", site},           {"namespace", ns},    {"group", of_group},
            {"epochSeen", 7},         {"fenced", false},    {"selfFenced", false},
            {"mysqlReachable", true}, {"sentAtMs", sent_at}};
  if (archiver)
    j["archiver"] = {{"enabled", true},
                     {"primary", true},
                     {"filesArchived", 12},
                     {"bytesArchived", 4096},
                     {"backlogFiles", 1},
                     {"uploadFailures", 0},
                     {"lastUploadTime", "2024-05-01T12:00:00Z"},
                     {"lastError", ""}};
  return j.dump();
}

std::string pushed_body(const br::topology_view& v, const std::string& nonce) {
  auto j = json::parse(br::view_to_json(v));
  j["nonce"] = nonce;
  return j.dump();
}

void write_seeds(const std::string& dir) {
  std::vector<std::pair<std::string, std::string>> seeds;
  auto add = [&](std::string name, std::string bytes) {
    seeds.emplace_back(std::move(name), std::move(bytes));
  };
  const std::string nonce = nonce_seed;
  auto sv = pushed_view();

  // The operator's routes.
  auto rep = report_body("east", 1700000000000, false);
  auto rep_sig = auth::sign_body(W->east, auth::purpose::report, group, rep);
  auto rep_a = report_body("west", 1700000000001, true);
  auto rep_a_sig = auth::sign_body(W->west, auth::purpose::report, group, rep_a);
  add("op_active_site",
      seed(operator_router, {"GET", "/active-site?namespace=db&group=orders&nonce=" + nonce, ""}));
  add("op_active_site_nokeys",
      seed(operator_router, {"GET", "/active-site?namespace=db&group=nokeys", ""}));
  add("op_active_site_no_groups",
      seed(operator_router | 0x70, {"GET", "/active-site?namespace=db&group=orders", ""}));
  add("op_active_site_plus",
      seed(operator_router,
           {"GET", "/active-site?namespace=d%62&group=orders&nonce=0123456789ABCDEF&x+y=%2B#f",
            ""}));
  add("op_status", seed(operator_router, {"GET", "/status", ""}));
  add("op_events", seed(operator_router, {"GET", "/events?since=0", ""}));
  add("op_pitr",
      seed(operator_router, {"GET", "/pitr-cutoff?namespace=db&group=orders&profile=daily", ""}));
  add("op_pitr_fail",
      seed(operator_router, {"GET", "/pitr-cutoff?namespace=db&group=orders&profile=fail", ""}));
  add("op_dashboard_head", seed(operator_router, {"HEAD", "/", ""}));
  add("op_dashboard_js", seed(operator_router, {"GET", "/dashboard.js", ""}));
  add("op_405", seed(operator_router, {"DELETE", "/status", ""}));
  add("op_404_bad_escape", seed(operator_router, {"GET", "/no%2Fpe?a=%zz", ""}));
  add("op_report", seed(operator_router, {"POST", "/sidecar/report", rep_sig, rep}));
  add("op_report_archiver", seed(operator_router, {"POST", "/sidecar/report", rep_a_sig, rep_a}));
  add("op_report_autosign", seed(operator_router | 0x20, {"POST", "/sidecar/report", "", rep}));
  // handle_report directly.
  add("report", seed(report, {"", "", rep_sig, rep}));
  add("report_archiver", seed(report, {"", "", rep_a_sig, rep_a}));
  add("report_autosign_east", seed(report | 0x20, {"", "", "", rep}));
  add("report_autosign_west_archiver", seed(report | 0x30, {"", "", "", rep_a}));
  add("report_unsigned", seed(report, {"", "", "", rep}));
  // A Group Replication doorbell (kind gr-observed): a wake-up of the group's pollers.
  auto bell = json{{"kind", "gr-observed"}, {"site", "east"},      {"namespace", ns},
                   {"group", group_name},   {"sentAtMs", 1700000000002},
                   {"gr", {{"reachable", true}, {"memberId", "m1"}, {"groupName", "g"},
                           {"selfState", "ONLINE"}, {"viewId", "1700:3"},
                           {"members", json::array({{{"memberId", "m1"}, {"state", "ONLINE"},
                                                     {"role", "PRIMARY"}}})}}}}
                  .dump();
  add("report_doorbell", seed(report, {"", "", auth::sign_body(W->east, auth::purpose::report, group, bell), bell}));
  add("report_doorbell_autosign", seed(report | 0x20, {"", "", "", bell}));
  add("report_other_group",
      seed(report | 0x20, {"", "", "", report_body("east", 5, false, "nokeys")}));

  // The sidecar's routes.
  auto push_body = pushed_body(sv, nonce);
  add("sc_push", seed(sidecar_router, {"PUT", "/view", "", push_body}));
  add("sc_peer_active_site", seed(sidecar_router, {"GET", "/peer/active-site?nonce=" + nonce, ""}));
  for (const char* p : {"/health", "/ready", "/status", "/peer/ping", "/primary", "/replica"}) {
    std::string name = std::string("sc_") + (p + 1);
    for (char& c : name)
      if (c == '/') c = '_';
    add(name, seed(sidecar_router, {"GET", p, ""}));
  }
  add("sc_archiver_status", seed(sidecar_router | 0x80, {"GET", "/archiver/status", ""}));
  add("sc_405", seed(sidecar_router, {"POST", "/view", ""}));
  // check_push directly.
  add("push", seed(push, {"", "", "", push_body}));
  br::topology_view first = sv;
  first.epoch = 1;
  first.active_site = "east";
  first.deposing = "";
  first = auth::sign_view(W->op, group, first);
  add("push_first", seed(push, {"", "", "", pushed_body(first, nonce)}));
  add("push_unsigned",
      seed(push, {"", "", "", pushed_body(br::topology_view{3, "west", "", 0, ""}, nonce)}));

  // What the sidecar reads: the operator's answer to GET /active-site.
  json op_answer = {{"namespace", ns},   {"group", group_name},     {"activeSite", sv.active_site},
                    {"epoch", sv.epoch}, {"deposing", sv.deposing}, {"signature", sv.signature},
                    {"nonce", nonce}};
  auto op_body = http::response::json(200, op_answer).body;
  add("operator_answer",
      seed(operator_answer,
           {"200", nonce, auth::sign_body(W->op, auth::purpose::operator_answer, group, op_body),
            op_body}));
  add("operator_answer_autosign", seed(operator_answer | 0x10, {"", nonce, "", op_body}));
  add("operator_answer_503",
      seed(operator_answer, {"503", nonce, "", R"({"error":"coordinator: timeout"})"}));
  // A peer's answer to GET /peer/active-site.
  auto peer_body = br::sidecar::peer_answer_body(W->west_auth, nonce, sv);
  add("peer_answer",
      seed(peer_answer,
           {"200", nonce, br::sidecar::sign(W->west_auth, auth::purpose::peer_answer, peer_body),
            peer_body}));
  add("peer_answer_autosign", seed(peer_answer | 0x30, {"", nonce, "", peer_body}));
  add("peer_answer_unsigned", seed(peer_answer, {"200", nonce, "", peer_body}));
  // What the operator reads: a sidecar's answer to PUT /view, and its held view.
  br::push_ack ok{true, false, 7, true, false, ""};
  br::push_ack stale{false, true, 9, false, true, "sidecar holds epoch 9"};
  br::push_ack failed{false, false, 7, false, true, "fence not confirmed"};
  for (auto [name, ack] :
       {std::pair{"ack_ok", ok}, std::pair{"ack_stale", stale}, std::pair{"ack_failed", failed}}) {
    auto res = br::sidecar::push_response(W->east_auth, nonce, ack);
    std::string sig;
    for (const auto& [k, v] : res.headers)
      if (k == auth::signature_header) sig = v;
    add(name, seed(view_ack, {std::to_string(res.status), nonce, sig, res.body}));
  }
  add("ack_autosign",
      seed(view_ack | 0x20, {"200", nonce, "", br::sidecar::ack_body(W->east_auth, nonce, ok)}));
  add("held_view", seed(held_view, {"200", nonce, "", peer_body}));
  // Fields a newer sidecar might add, inside and beside the view: readers must ignore them.
  auto extended = json::parse(peer_body);
  extended["view"]["history"] = json::parse(R"([[7,"west"],[6,"east"]])");
  extended["load"] = {{"p99", 1.5}};
  auto ext_body = extended.dump();
  add("peer_answer_extended",
      seed(peer_answer,
           {"200", nonce, br::sidecar::sign(W->west_auth, auth::purpose::peer_answer, ext_body),
            ext_body}));
  add("held_view_extended", seed(held_view, {"200", nonce, "", ext_body}));
  add("held_view_none", seed(held_view, {"204", "", "", ""}));
  // Shape limits and the view parsers.
  add("shape_report", seed(shape, {"1024", "\x08", "", rep_a}));
  add("shape_push", seed(shape, {"256", "\x02", "", R"({"a":"[{\"}","b":[[1]],"c":{}})"}));
  add("parse_push", seed(view_parsers, {"", "", "", push_body}));
  add("parse_answer", seed(view_parsers, {"", "", "", br::view_to_json(sv)}));
  add("parse_same_sites",
      seed(view_parsers, {"", "", "",
                          R"({"epoch":3,"activeSite":"east","deposing":"east",)"
                          R"("observedAt":"2024-05-01T12:00:00Z","signature":"","nonce":""})"}));
  add("parse_site_number",
      seed(view_parsers,
           {"", "", "",
            R"({"epoch":3,"activeSite":1,"deposing":"","observedAt":"2024-05-01T12:00:00Z"})"}));
  add("parse_leap",
      seed(view_parsers,
           {"", "", "",
            R"({"epoch":2,"activeSite":"a","deposing":"",)"
            R"("observedAt":"2016-12-31T23:59:60.5+01:00","signature":"x","nonce":"y"})"}));

  for (const auto& [name, bytes] : seeds) {
    std::ofstream f(dir + "/" + name, std::ios::binary);
    f.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
    check(f.good(), "cannot write a seed");
  }
  std::printf("wrote %zu seeds to %s\n", seeds.size(), dir.c_str());
}

void append_dict(const std::string& file) {
  std::ofstream f(file, std::ios::app);
  auto id = [&](const char* name, const crypto::signing_key& k) {
    f << name << "=\"" << k.pub.id << ":\"\n";
  };
  id("kid_operator", W->op);
  id("kid_east", W->east);
  id("kid_west", W->west);
  f << "view_signature=\"" << pushed_view().signature << "\"\n";
  check(f.good(), "cannot write the dictionary");
}

}  // namespace

extern "C" int LLVMFuzzerInitialize(int*, char***) {
  W = new world();
  const char* seeds = std::getenv("BR_FUZZ_SEEDS");
  const char* dict = std::getenv("BR_FUZZ_DICT");
  if (seeds) write_seeds(seeds);
  if (dict) append_dict(dict);
  if (seeds || dict) std::_Exit(0);
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  auto in = split(data, size);
  if (!in) return 0;
  switch (in->m) {
    case operator_router:
      run_operator_router(*in);
      break;
    case sidecar_router:
      run_sidecar_router(*in);
      break;
    case report:
      run_report(*in);
      break;
    case push:
      run_push(*in);
      break;
    case operator_answer:
      run_operator_answer(*in);
      break;
    case peer_answer:
      run_peer_answer(*in);
      break;
    case view_ack:
      run_view_ack(*in);
      break;
    case held_view:
      run_held_view(*in);
      break;
    case shape:
      run_shape(*in);
      break;
    case view_parsers:
      run_view_parsers(*in);
      break;
    case mode_count:
      break;
  }
  return 0;
}
