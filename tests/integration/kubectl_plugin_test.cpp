// tools/kubectl-bloodraven against the API simulator with the chart's CRD: status [-w], group status [-w], reclone,
// events, watch, and its error messages.
#include <boost/test/unit_test.hpp>

#include <csignal>
#include <fstream>
#include <sstream>
#include <thread>

#include "io/kube/client.hpp"
#include "tests/support/child_process.hpp"
#include "tests/support/kube_sim/simulator.hpp"
#include "tests/support/kube_sim/test_support.hpp"

using namespace br::kube;
using namespace br::kube_sim::test;
using namespace std::chrono_literals;
using nlohmann::json;

namespace {

std::string source(const std::string& rel) {
  const char* src = std::getenv("BR_SOURCE_DIR");
  return std::string{src ? src : "."} + "/" + rel;
}

const resource_ref events_ref{"", "v1", "events", true};

// A recorded divergence as the server formats it (UUID sets separated by ",\n").
const std::string divergent =
    "3e11fa47-71ca-11e1-9e33-c80aa9429562:5-7,\n4a22fb58-82db-22f2-af44-d91bb0530673:1";

struct plugin_fixture {
  br::kube_sim::simulator sim;
  temp_dir dir;
  std::string kubeconfig;
  std::unique_ptr<client> c;

  plugin_fixture() {
    sim.start();
    kubeconfig = sim.write_kubeconfig(dir.path.string());
    c = std::make_unique<client>(sim_config(sim));
  }

  std::vector<std::string> args(std::vector<std::string> a) const {
    a.insert(a.begin(), {"--kubeconfig", kubeconfig, "--cache-dir", (dir.path / "cache").string(),
                         "--request-timeout", "20s", "-n", "databases"});
    return a;
  }
  std::map<std::string, std::string> env() const {
    return {{"HOME", dir.path.string()},
            {"KUBECONFIG", kubeconfig},
            {"BLOODRAVEN_WATCH_INTERVAL", "0.3"}};
  }
  std::unique_ptr<br::test::child_process> spawn(std::vector<std::string> a) const {
    return std::make_unique<br::test::child_process>(source("tools/kubectl-bloodraven"),
                                                     args(std::move(a)), env());
  }
  std::pair<int, std::string> run(std::vector<std::string> a) const {
    auto p = spawn(std::move(a));
    auto code = p->wait_exit(60s);
    BOOST_REQUIRE_MESSAGE(code.has_value(), "plugin did not finish: " + p->output());
    return {*code, p->output()};
  }
  std::pair<int, std::string> kubectl(std::vector<std::string> a) const {
    a.insert(a.begin(), {"--kubeconfig", kubeconfig, "--cache-dir", (dir.path / "cache").string()});
    br::test::child_process p("/usr/bin/kubectl", a, env());
    auto code = p.wait_exit(60s);
    BOOST_REQUIRE_MESSAGE(code.has_value(), "kubectl did not finish: " + p.output());
    return {*code, p.output()};
  }

  /// The chart's CRD, then deploy/examples/group.yaml (namespace databases), then a status.
  void install(const json& status) {
    auto crd = kubectl({"apply", "-f", source("charts/bloodraven/crds/shipstream.io_mysqlfailovergroups.yaml")});
    BOOST_REQUIRE_MESSAGE(crd.first == 0, crd.second);
    auto ns = c->create(resource_ref{"", "v1", "namespaces", false}, "",
                        json{{"apiVersion", "v1"}, {"kind", "Namespace"},
                             {"metadata", {{"name", "databases"}}}});
    BOOST_REQUIRE_MESSAGE(ns.ok(), (ns.ok() ? std::string{} : ns.error().describe()));
    auto grp = kubectl({"apply", "-f", source("deploy/examples/group.yaml")});
    BOOST_REQUIRE_MESSAGE(grp.first == 0, grp.second);
    set_status(status);
  }
  void set_status(const json& status) {
    auto r = c->merge_patch(mfg_ref, "databases", "orders", json{{"status", status}}, "status");
    BOOST_REQUIRE_MESSAGE(r.ok(), (r.ok() ? std::string{} : r.error().describe()));
  }
  /// A Group Replication group "ledger" (orders' spec with mode groupReplication) with `gr` as
  /// its status.groupReplication.
  void install_gr_group(const json& gr) {
    auto doc = get_orders();
    json g = {{"apiVersion", doc["apiVersion"]},
              {"kind", doc["kind"]},
              {"metadata", {{"name", "ledger"}, {"namespace", "databases"}}},
              {"spec", doc["spec"]}};
    g["spec"]["replication"]["mode"] = "groupReplication";
    auto r = c->create(mfg_ref, "databases", g);
    BOOST_REQUIRE_MESSAGE(r.ok(), (r.ok() ? std::string{} : r.error().describe()));
    set_gr_status(gr);
  }
  void set_gr_status(const json& gr) {
    auto r = c->merge_patch(mfg_ref, "databases", "ledger",
                            json{{"status", {{"groupReplication", gr}}}}, "status");
    BOOST_REQUIRE_MESSAGE(r.ok(), (r.ok() ? std::string{} : r.error().describe()));
  }
  json get_orders() {
    auto r = c->get(mfg_ref, "databases", "orders");
    BOOST_REQUIRE_MESSAGE(r.ok(), (r.ok() ? std::string{} : r.error().describe()));
    return *r;
  }
};

json sample_status(const std::string& active, uint64_t epoch) {
  return {{"activeSite", active},
          {"epoch", epoch},
          {"lastFailover", "2026-11-22T03:00:00Z"},
          {"lastFailoverTarget", "pdx"},
          {"conditions", json::array({{{"type", "Ready"}, {"status", "False"}, {"reason", "Degraded"}}})},
          {"sites",
           json::array({{{"name", "iad"}, {"role", "primary-candidate"}, {"state", "read-only"},
                         {"replicating", false}, {"recoveryState", "RecoveryBlocked"},
                         {"divergentGtid", divergent}, {"divergentTransactionCount", 4}},
                        {{"name", "pdx"}, {"role", "primary-candidate"}, {"state", "writable"},
                         {"replicating", false}, {"lastSeen", "2026-11-22T03:10:00Z"}},
                        {{"name", "sea"}, {"role", "read-only"}, {"state", "read-only"},
                         {"replicating", true}, {"secondsBehindSource", 42}}})}};
}

/// status.groupReplication of a 3-member group whose PRIMARY is `primary` (the third member
/// is RECOVERING, so the online count is 2).
json gr_status(const std::string& primary, const std::string& view_id) {
  auto member = [&](const std::string& name, const std::string& state, const std::string& role,
                    const std::string& id) {
    return json{{"name", name}, {"state", state}, {"role", role}, {"reachable", true}, {"memberId", id}};
  };
  const std::string other = primary == "iad" ? "pdx" : "iad";
  return {{"groupName", "aaaaaaaa-bbbb-cccc-dddd-eeeeeeeeeeee"},
          {"bootstrapped", true},
          {"primaryMember", primary},
          {"hasQuorum", true},
          {"viewKnown", true},
          {"viewId", view_id},
          {"observedViewMax", 3},
          {"members", json::array({member(primary, "ONLINE", "PRIMARY", "uuid-" + primary),
                                   member(other, "ONLINE", "SECONDARY", "uuid-" + other),
                                   member("sea", "RECOVERING", "SECONDARY", "uuid-sea")})}};
}

/// The table row of `site` (the line starting with it, after indentation), "" when missing.
std::string row_of(const std::string& out, const std::string& site) {
  std::istringstream in(out);
  std::string line;
  while (std::getline(in, line)) {
    auto b = line.find_first_not_of(' ');
    if (b != std::string::npos && line.compare(b, site.size() + 1, site + " ") == 0) return line;
  }
  return {};
}

std::vector<std::string> words(const std::string& line) {
  std::istringstream in(line);
  std::vector<std::string> w;
  for (std::string s; in >> s;) w.push_back(s);
  return w;
}

}  // namespace

BOOST_FIXTURE_TEST_SUITE(kubectl_plugin, plugin_fixture)

BOOST_AUTO_TEST_CASE(clear_error_without_the_crd_and_for_bad_usage) {
  auto r = run({"status"});
  BOOST_TEST(r.first == 1);
  BOOST_TEST(r.second.find("CRD is not installed") != std::string::npos, r.second);
  auto u = run({"frobnicate"});
  BOOST_TEST(u.first == 1);
  BOOST_TEST(u.second.find("unknown command 'frobnicate'") != std::string::npos, u.second);
}

BOOST_AUTO_TEST_CASE(status_table_from_the_cr_status) {
  install(sample_status("pdx", 5));
  auto r = run({"status"});
  BOOST_TEST_REQUIRE(r.first == 0, r.second);
  BOOST_TEST_MESSAGE("kubectl bloodraven status:\n" << r.second);
  BOOST_TEST(r.second.find("GROUP databases/orders") != std::string::npos, r.second);
  BOOST_TEST(r.second.find("active site:    pdx") != std::string::npos, r.second);
  BOOST_TEST(r.second.find("epoch:          5") != std::string::npos, r.second);
  BOOST_TEST(r.second.find("pdx at 2026-11-22T03:00:00Z") != std::string::npos, r.second);
  BOOST_TEST(r.second.find("Ready=False(Degraded)") != std::string::npos, r.second);
  // One row per site, columns in header order: SITE ROLE STATE REPLICATING LAG ...
  auto pdx = words(row_of(r.second, "pdx"));
  BOOST_TEST_REQUIRE(pdx.size() >= 5u, r.second);
  BOOST_TEST(pdx[1] == "*");  // the active marker
  BOOST_TEST(pdx[2] == "primary-candidate");
  BOOST_TEST(pdx[3] == "writable");
  auto sea = words(row_of(r.second, "sea"));
  BOOST_TEST_REQUIRE(sea.size() >= 5u, r.second);
  BOOST_TEST(sea[1] == "read-only");
  BOOST_TEST(sea[3] == "yes");
  BOOST_TEST(sea[4] == "42s");
  auto iad = row_of(r.second, "iad");
  BOOST_TEST(iad.find("RecoveryBlocked") != std::string::npos, r.second);
  BOOST_TEST(iad.find("4 trx") != std::string::npos, r.second);
  auto missing = run({"status", "nosuch"});
  BOOST_TEST(missing.first == 1);
  BOOST_TEST(missing.second.find("not found") != std::string::npos, missing.second);
}

BOOST_AUTO_TEST_CASE(status_w_redraws_on_change) {
  install(sample_status("pdx", 5));
  auto p = spawn({"status", "-w"});
  BOOST_TEST_REQUIRE(p->wait_for_line("active site:    pdx", 60s).has_value(), p->output());
  set_status(sample_status("iad", 6));
  BOOST_TEST(p->wait_for_line("active site:    iad", 60s).has_value(), p->output());
  p->signal(SIGTERM);
  p->wait_exit(10s);
}

BOOST_AUTO_TEST_CASE(group_status_shows_the_group_replication_view) {
  install(sample_status("pdx", 5));
  install_gr_group(gr_status("pdx", "17000:3"));
  auto r = run({"group", "status"});
  BOOST_TEST_REQUIRE(r.first == 0, r.second);
  BOOST_TEST_MESSAGE("kubectl bloodraven group status:\n" << r.second);
  BOOST_TEST(r.second.find("GROUP databases/ledger") != std::string::npos, r.second);
  BOOST_TEST(r.second.find("databases/orders") == std::string::npos, r.second);  // async: left out
  BOOST_TEST(r.second.find("group name:     aaaaaaaa-bbbb-cccc-dddd-eeeeeeeeeeee") != std::string::npos, r.second);
  BOOST_TEST(r.second.find("bootstrapped:   yes") != std::string::npos, r.second);
  BOOST_TEST(r.second.find("quorum:         yes") != std::string::npos, r.second);
  BOOST_TEST(r.second.find("primary:        pdx") != std::string::npos, r.second);
  BOOST_TEST(r.second.find("online:         2/3") != std::string::npos, r.second);
  BOOST_TEST(r.second.find("view id:        17000:3") != std::string::npos, r.second);
  // Member table: MEMBER STATE ROLE REACHABLE MEMBER-ID, the primary marked.
  auto pdx = words(row_of(r.second, "pdx"));
  BOOST_TEST_REQUIRE(pdx.size() == 6u, r.second);
  BOOST_TEST(pdx[1] == "*");
  BOOST_TEST(pdx[2] == "ONLINE");
  BOOST_TEST(pdx[3] == "PRIMARY");
  BOOST_TEST(pdx[4] == "yes");
  BOOST_TEST(pdx[5] == "uuid-pdx");
  auto sea = words(row_of(r.second, "sea"));
  BOOST_TEST_REQUIRE(sea.size() == 5u, r.second);
  BOOST_TEST(sea[1] == "RECOVERING");
  // Lost quorum reads NO, not unknown.
  auto lost = gr_status("pdx", "17000:4");
  lost["hasQuorum"] = false;
  set_gr_status(lost);
  auto q = run({"group", "status", "ledger"});
  BOOST_TEST_REQUIRE(q.first == 0, q.second);
  BOOST_TEST(q.second.find("quorum:         NO") != std::string::npos, q.second);
}

BOOST_AUTO_TEST_CASE(group_status_refuses_an_async_group_and_bad_usage) {
  install(sample_status("pdx", 5));
  auto r = run({"group", "status", "orders"});
  BOOST_TEST(r.first == 1);
  BOOST_TEST(r.second.find("orders is an async group") != std::string::npos, r.second);
  auto none = run({"group", "status"});  // only async groups here
  BOOST_TEST_REQUIRE(none.first == 0, none.second);
  BOOST_TEST(none.second.find("No Group Replication groups found.") != std::string::npos, none.second);
  auto sub = run({"group", "frob"});
  BOOST_TEST(sub.first == 1);
  BOOST_TEST(sub.second.find("unknown subcommand 'frob'") != std::string::npos, sub.second);
  auto missing = run({"group", "status", "nosuch"});
  BOOST_TEST(missing.first == 1);
  BOOST_TEST(missing.second.find("not found") != std::string::npos, missing.second);
}

BOOST_AUTO_TEST_CASE(group_status_w_redraws_on_change) {
  install(sample_status("pdx", 5));
  install_gr_group(gr_status("pdx", "17000:3"));
  auto p = spawn({"group", "status", "ledger", "-w"});
  BOOST_TEST_REQUIRE(p->wait_for_line("primary:        pdx", 60s).has_value(), p->output());
  set_gr_status(gr_status("iad", "17000:5"));
  BOOST_TEST(p->wait_for_line("primary:        iad", 60s).has_value(), p->output());
  p->signal(SIGTERM);
  p->wait_exit(10s);
}

BOOST_AUTO_TEST_CASE(reclone_sets_the_guarded_annotation) {
  install(sample_status("pdx", 5));
  auto r = run({"reclone", "iad"});
  BOOST_TEST_REQUIRE(r.first == 0, r.second);
  auto ann = get_orders()["metadata"]["annotations"].value("bloodraven.shipstream.io/reclone-site", "");
  // <site>:<prefix> where the prefix (>= 8 chars) is a prefix of the compact recorded set.
  std::string compact;
  for (char ch : divergent)
    if (ch != '\n' && ch != ' ') compact += ch;
  BOOST_TEST_REQUIRE(ann.rfind("iad:", 0) == 0u, ann);
  auto prefix = ann.substr(4);
  BOOST_TEST(prefix.size() >= 8u);
  BOOST_TEST(compact.rfind(prefix, 0) == 0u, ann);

  // Refusals, each with its reason; none touches the annotation.
  set_status(sample_status("pdx", 5));
  auto active = run({"reclone", "pdx"});
  BOOST_TEST(active.first == 1);
  BOOST_TEST(active.second.find("is the active primary") != std::string::npos, active.second);
  auto clean = run({"reclone", "sea"});
  BOOST_TEST(clean.first == 1);
  BOOST_TEST(clean.second.find("no recorded divergentGtid") != std::string::npos, clean.second);
  auto unknown = run({"reclone", "mars"});
  BOOST_TEST(unknown.first == 1);
  BOOST_TEST(unknown.second.find("site mars is not in group orders") != std::string::npos,
             unknown.second);
  auto none = run({"reclone"});
  BOOST_TEST(none.first == 1);
  BOOST_TEST(get_orders()["metadata"]["annotations"].value("bloodraven.shipstream.io/reclone-site", "") ==
             ann);
}

BOOST_AUTO_TEST_CASE(events_of_the_group_oldest_first) {
  install(sample_status("pdx", 5));
  auto event = [&](const std::string& name, const std::string& kind, const std::string& reason,
                   const std::string& when, const std::string& type) {
    json e = {{"apiVersion", "v1"},
              {"kind", "Event"},
              {"metadata", {{"name", name}, {"namespace", "databases"}}},
              {"involvedObject",
               {{"kind", kind}, {"name", "orders"}, {"namespace", "databases"},
                {"apiVersion", "shipstream.io/v1alpha1"}}},
              {"reason", reason},
              {"message", reason + " message"},
              {"type", type},
              {"count", 1},
              {"firstTimestamp", when},
              {"lastTimestamp", when}};
    auto r = c->create(events_ref, "databases", e);
    BOOST_REQUIRE_MESSAGE(r.ok(), (r.ok() ? std::string{} : r.error().describe()));
  };
  event("e2", "MysqlFailoverGroup", "FailoverExecuted", "2026-11-22T03:05:00Z", "Normal");
  event("e1", "MysqlFailoverGroup", "NoPrimaryDetected", "2026-11-22T03:04:00Z", "Warning");
  event("e3", "Pod", "Scheduled", "2026-11-22T03:06:00Z", "Normal");
  auto r = run({"events"});
  BOOST_TEST_REQUIRE(r.first == 0, r.second);
  auto first = r.second.find("NoPrimaryDetected");
  auto second = r.second.find("FailoverExecuted");
  BOOST_TEST(first != std::string::npos, r.second);
  BOOST_TEST(second != std::string::npos, r.second);
  BOOST_TEST(first < second, r.second);
  BOOST_TEST(r.second.find("Scheduled") == std::string::npos, r.second);  // not a group event
  BOOST_TEST(r.second.find("Warning") != std::string::npos, r.second);
}

BOOST_AUTO_TEST_CASE(watch_prints_a_line_per_change) {
  install(sample_status("pdx", 5));
  auto p = spawn({"watch", "orders"});
  BOOST_TEST_REQUIRE(p->wait_for_line("databases/orders active=pdx epoch=5", 60s).has_value(),
                     p->output());
  // Change the object only once kubectl's watch stream is open (it prints its GET first).
  for (int i = 0; i < 300 && sim.open_watches() == 0; ++i) std::this_thread::sleep_for(100ms);
  BOOST_REQUIRE(sim.open_watches() == 1u);
  set_status(sample_status("iad", 6));
  auto line = p->wait_for_line("active=iad epoch=6", 60s);
  BOOST_TEST_REQUIRE(line.has_value(), p->output());
  BOOST_TEST(line->find("pdx=writable") != std::string::npos, *line);
  BOOST_TEST(line->find("iad=read-only(RecoveryBlocked)") != std::string::npos, *line);
  p->signal(SIGTERM);
  p->wait_exit(10s);
}

BOOST_AUTO_TEST_SUITE_END()
