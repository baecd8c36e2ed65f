// bloodraven --standalone FILE as a real process: a group on sandbox MySQL 9 and 10, plus a
// read-only site `spare` whose address refuses connections (it may be fenced by hand without
// leaving the group without a failover candidate).
#include <boost/test/unit_test.hpp>

#include <nlohmann/json.hpp>

#include <csignal>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <functional>
#include <thread>

#include "actors/common/authority.hpp"
#include "io/http/client.hpp"
#include "tests/support/temp_dir.hpp"
#include "tests/support/child_process.hpp"
#include "tests/support/mysql_sandbox.hpp"
#include "tests/support/eventually.hpp"

using namespace std::chrono_literals;
using br::test::binary_path;
using br::test::child_process;
using nlohmann::json;

namespace {

constexpr int primary = 9;
constexpr int replica = 10;

br::test::mysql_sandbox& sandbox() {
  static br::test::mysql_sandbox s;
  return s;
}

std::string site_of(int i) { return "s" + std::to_string(i); }

struct temp_dir : br::test::temp_dir {
  temp_dir() : br::test::temp_dir("br-standalone") {}
};

std::string group_yaml() {
  std::string y =
      "apiVersion: shipstream.io/v1alpha1\n"
      "kind: MysqlFailoverGroup\n"
      "metadata: {name: orders, namespace: shop}\n"
      "spec:\n"
      "  pollInterval: 300ms\n"
      "  replication: {user: repl, password: replpw}\n"
      "  sites:\n";
  for (int i : {primary, replica})
    y += "    - {name: " + site_of(i) + ", address: {host: 127.0.0.1, port: " +
         std::to_string(sandbox().port(i)) + "}}\n";
  y += "    - {name: spare, role: read-only, address: {host: 127.0.0.1, port: " +
       std::to_string(br::test::free_port()) + "}}\n";  // nothing listens there
  return y;
}

/// Calls `probe` until it returns true or the (generous, safety-only) deadline passes.
bool eventually(const std::function<bool()>& probe, std::chrono::seconds deadline) {
  return br::test::eventually(probe, deadline, 300ms);
}

/// How many nodes of the /debug/actors tree have this kind.
int count_kind(const json& node, const std::string& kind) {
  int n = 0;
  if (node.is_object()) {
    if (node.contains("kind") && node["kind"] == kind) ++n;
    for (const auto& [k, v] : node.items()) n += count_kind(v, kind);
  } else if (node.is_array()) {
    for (const auto& v : node) n += count_kind(v, kind);
  }
  return n;
}

struct sandbox_fixture {
  sandbox_fixture() {
    for (int i : {primary, replica}) sandbox().reset(i);
    sandbox().replicate(replica, primary);
  }
  ~sandbox_fixture() {
    for (int i : {primary, replica}) {
      auto r = sandbox().run({"stop", std::to_string(i)});
      if (r.exit_code != 0) BOOST_TEST_MESSAGE("stop " << i << ": " << r.err);
    }
  }
};

}  // namespace

BOOST_AUTO_TEST_SUITE(standalone)

BOOST_AUTO_TEST_CASE(broken_group_file_exits_2_listing_every_field) {
  temp_dir dir;
  // Two independent mistakes: a bad site name and a missing standalone address.
  auto file = dir.write("broken.yaml",
                        "metadata: {name: orders}\n"
                        "spec:\n"
                        "  sites:\n"
                        "    - {name: BAD_NAME, address: {host: 127.0.0.1}}\n"
                        "    - {name: pdx}\n");
  child_process p(binary_path("bloodraven"),
                  {"--standalone", file, "--listen", "127.0.0.1:0", "--metrics-listen", "",
                   "--state-dir", (dir.path / "state").string(), "--mysql-user", "bloodraven"});
  auto rc = p.wait_exit(30s);
  BOOST_TEST_REQUIRE(rc.has_value(), p.output());
  BOOST_TEST(*rc == 2, p.output());
  BOOST_TEST(p.output().find("spec.sites[0].name") != std::string::npos, p.output());
  BOOST_TEST(p.output().find("spec.sites[1].address") != std::string::npos, p.output());
}

BOOST_FIXTURE_TEST_CASE(runs_a_two_site_group, sandbox_fixture) {
  temp_dir dir;
  auto file = dir.write("group.yaml", group_yaml());
  child_process p(binary_path("bloodraven"),
                  {"--standalone", file, "--listen", "127.0.0.1:0", "--metrics-listen", "",
                   "--state-dir", (dir.path / "state").string(), "--mysql-user", "bloodraven"},
                  {{"BLOODRAVEN_MYSQL_PASSWORD", "bloodravenpw"}});
  auto line = p.wait_for_line("http server listening", 30s);
  BOOST_TEST_REQUIRE(line.has_value(), p.output());
  int port = br::test::listening_port(*line);
  BOOST_TEST_REQUIRE(port > 0);
  std::string base = "http://127.0.0.1:" + std::to_string(port);
  br::http::client c;

  // The writable instance becomes the active site under a real epoch.
  json view;
  bool active = eventually(
      [&] {
        auto r = c.get(base + "/active-site?namespace=shop&group=orders");
        if (r.status != 200) return false;
        view = json::parse(r.body, nullptr, false);
        return view.is_object() && view.value("activeSite", "") == site_of(primary) &&
               view.value("epoch", 0) >= 1;
      },
      120s);
  BOOST_TEST_REQUIRE(active, "last view: " + view.dump() + "\noutput:\n" + p.output());
  BOOST_TEST(view["namespace"] == "shop");
  BOOST_TEST(view["group"] == "orders");
  BOOST_TEST(view.contains("deposing"));

  // Status: both sites with their polled states.
  json status;
  bool states = eventually(
      [&] {
        auto r = c.get(base + "/status");
        if (r.status != 200) return false;
        status = json::parse(r.body, nullptr, false);
        if (!status.is_object() || !status.contains("shop/orders")) return false;
        std::map<std::string, std::string> st;
        for (const auto& s : status["shop/orders"].value("sites", json::array()))
          st[s.value("name", "")] = s.value("state", "");
        return st[site_of(primary)] == "writable" && st[site_of(replica)] == "read-only";
      },
      120s);
  BOOST_TEST(states, "last status: " + status.dump());

  // The supervision tree: group supervisor, coordinator and one poller per site.
  auto actors = json::parse(c.get(base + "/debug/actors").body, nullptr, false);
  // The group supervisor is a plain supervisor named after the group.
  BOOST_TEST(actors.dump().find(R"("path":"root/group:orders")") != std::string::npos,
             actors.dump());
  BOOST_TEST(count_kind(actors, "supervisor") == 2, actors.dump());  // root + the group's
  BOOST_TEST(count_kind(actors, "coordinator") == 1, actors.dump());
  BOOST_TEST(count_kind(actors, "site_poller") == 3, actors.dump());

  // Error shapes.
  auto bad = c.get(base + "/active-site?group=orders");
  BOOST_TEST(bad.status == 400);
  BOOST_TEST(json::parse(bad.body, nullptr, false).value("error", "") ==
             "namespace and group query parameters are required");
  BOOST_TEST(c.get(base + "/active-site?namespace=shop&group=nosuch").status == 404);
  BOOST_TEST(c.get(base + "/active-site?namespace=default&group=orders").status == 404);
  BOOST_TEST(c.post(base + "/sidecar/report", "{not json").status == 400);
  BOOST_TEST(c.post(base + "/sidecar/report", R"({"site":"s9","namespace":"shop"})").status == 400);

  // Reports are signed by their site's key: the operator generated the group's keys beside its
  // state (no --keys-dir); a sidecar of site s10 would mount site-s10.key from there.
  auto key = [&] {
    std::ifstream in(dir.path / "state" / "keys" / "site-s10.key");
    return br::crypto::signing_key_from_pem(std::string(std::istreambuf_iterator<char>(in), {})).key;
  }();
  BOOST_TEST_REQUIRE(key.has_value());
  int64_t sent = 1;
  auto report = [&](const std::string& fields) {
    auto body = json::parse("{" + fields + "}");
    body["sentAtMs"] = sent++;
    br::http::client_request r;
    r.method = "POST";
    r.url = base + "/sidecar/report";
    r.body = body.dump();
    r.headers.emplace_back("Content-Type", "application/json");
    r.headers.emplace_back(br::auth::signature_header,
                           br::auth::sign_body(*key, br::auth::purpose::report, "shop/orders", r.body));
    r.timeout = 10s;
    return br::http::perform(r);
  };
  auto unsigned_report = c.post(base + "/sidecar/report",
                                R"({"site":"s10","namespace":"shop","group":"orders","epochSeen":7,)"
                                R"("fenced":true,"selfFenced":false,"mysqlReachable":true,"sentAtMs":1})");
  BOOST_TEST(unsigned_report.status == 401, unsigned_report.body);

  // A well-formed report shows up under its site in /status.
  auto ok = report(R"("site":"s10","namespace":"shop","group":"orders","epochSeen":7,)"
                   R"("fenced":true,"selfFenced":false,"mysqlReachable":true)");
  BOOST_TEST(ok.status == 200, ok.body);
  auto st = json::parse(c.get(base + "/status").body, nullptr, false);
  bool seen = false;
  for (const auto& s : st["shop/orders"].value("sites", json::array()))
    if (s.value("name", "") == site_of(replica) && s.contains("sidecar"))
      seen = s["sidecar"].value("epochSeen", 0) == 7;
  BOOST_TEST(seen, st.dump());

  // PITR progress rides in the report: a malformed archiver object is refused by field path;
  // a valid one shows under the site and in the group's pitr entry.
  auto bad_archiver = report(R"("site":"s10","namespace":"shop","group":"orders","epochSeen":7,)"
                             R"("fenced":true,"selfFenced":false,"mysqlReachable":true,)"
                             R"("archiver":{"enabled":true,"primary":"yes"})");
  BOOST_TEST(bad_archiver.status == 400);
  BOOST_TEST(bad_archiver.body.find("archiver.primary") != std::string::npos, bad_archiver.body);
  auto pitr = report(R"("site":"s10","namespace":"shop","group":"orders","epochSeen":7,)"
                     R"("fenced":false,"selfFenced":false,"mysqlReachable":true,)"
                     R"("archiver":{"enabled":true,"primary":true,"filesArchived":2,)"
                     R"("bytesArchived":512,"backlogFiles":0,"uploadFailures":0,)"
                     R"("lastUploadTime":"2026-11-24T12:00:00Z","lastError":""})");
  BOOST_TEST(pitr.status == 200, pitr.body);
  st = json::parse(c.get(base + "/status").body, nullptr, false);
  auto p_entry = st["shop/orders"].value("pitr", json());
  BOOST_TEST(p_entry.value("archivingSite", "") == site_of(replica), st.dump());
  BOOST_TEST(p_entry.value("archivedFileCount", 0) == 2, st.dump());

  BOOST_TEST(c.get(base + "/events").status == 200);

  // -- manual fence (issue 20): POST /admin/fence, signed; the route file follows it -------------
  const auto route_path = dir.path / "state" / "orders.route.json";
  auto route = [&] {
    std::ifstream in(route_path);
    return in ? json::parse(std::istreambuf_iterator<char>(in), {}, nullptr, false) : json(nullptr);
  };
  // Adopted without a plan, the settled group has a route: s9 primary, the others replicas.
  const json both = {site_of(replica), "spare"};
  BOOST_TEST(eventually([&] { return route().value("replicas", json()) == both; }, 30s), route().dump());
  BOOST_TEST(route().value("primary", "") == site_of(primary));
  auto fence_cli = [&](const std::string& on_off, const std::string& site) {
    child_process cli(binary_path("bloodraven"),
                      {"fence", "--operator", base, "--keys-dir", (dir.path / "state" / "keys").string(),
                       "--namespace", "shop", "--group", "orders", on_off, site});
    auto code = cli.wait_exit(30s);
    return std::make_pair(code.value_or(-1), cli.output());
  };
  auto site_entry = [&](const std::string& name) {
    auto all = json::parse(c.get(base + "/status").body, nullptr, false);
    for (const auto& s : all["shop/orders"].value("sites", json::array()))
      if (s.value("name", "") == name) return s;
    return json::object();
  };
  // Without the operator's signature: refused, nothing changes.
  auto unsigned_fence = c.post(base + "/admin/fence",
                               R"({"action":"fence","namespace":"shop","group":"orders",)"
                               R"("value":"on:spare","sentAtMs":1})");
  BOOST_TEST(unsigned_fence.status == 401, unsigned_fence.body);
  BOOST_TEST(!site_entry("spare").value("manuallyFenced", false));
  // The active primary: refused with the reason.
  auto [rc_p, out_p] = fence_cli("on", site_of(primary));
  BOOST_TEST(rc_p != 0, out_p);
  BOOST_TEST(out_p.find("409") != std::string::npos, out_p);
  BOOST_TEST(out_p.find("s9 is the active primary") != std::string::npos, out_p);
  BOOST_TEST(!site_entry(site_of(primary)).value("manuallyFenced", false));
  // A replica: accepted; it leaves the replicas route (the primary stays).
  auto [rc_r, out_r] = fence_cli("on", "spare");
  BOOST_TEST_REQUIRE(rc_r == 0, out_r);
  BOOST_TEST(out_r.find("202") != std::string::npos, out_r);
  BOOST_TEST(eventually([&] { return site_entry("spare").value("manuallyFenced", false); }, 30s));
  BOOST_TEST(eventually([&] { return route().value("replicas", json()) == json({site_of(replica)}); }, 30s),
             route().dump());
  BOOST_TEST(route().value("fenced", json()) == json({"spare"}));
  BOOST_TEST(route().value("primary", "") == site_of(primary));
  // Unfenced: back behind the replicas route.
  auto [rc_u, out_u] = fence_cli("off", "spare");
  BOOST_TEST_REQUIRE(rc_u == 0, out_u);
  BOOST_TEST(eventually([&] { return route().value("replicas", json()) == both; }, 30s), route().dump());
  BOOST_TEST(!site_entry("spare").value("manuallyFenced", false));

  p.signal(SIGTERM);
  auto rc = p.wait_exit(60s);
  BOOST_TEST_REQUIRE(rc.has_value(), p.output());
  BOOST_TEST(*rc == 0, p.output());
}

BOOST_AUTO_TEST_SUITE_END()
