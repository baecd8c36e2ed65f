// Rendering of a Group Replication group in Kubernetes mode (issue 22): each member's my.cnf, the
// headless site Services with the group communication port, the -readers Service, the sidecar's
// GR settings, the GR grants; and an async group renders none of it.
#include <boost/test/unit_test.hpp>

#include <set>

#include "config/render/accounts.hpp"
#include "config/render/gr_member.hpp"
#include "config/render/my_cnf.hpp"
#include "config/render/names.hpp"
#include "config/sidecar_config.hpp"
#include "tests/unit/render_test_util.hpp"

using namespace br::render;
using namespace render_test;

namespace {

/// The render tests' group as a 3-member Group Replication group (every site a candidate).
json gr_doc() {
  json d = base_doc();
  d["spec"]["replication"]["mode"] = "groupReplication";
  d["spec"]["replication"]["groupReplication"] = {
      {"consistency", "BEFORE"}, {"exitStateAction", "OFFLINE_MODE"}, {"autoRejoinTries", 5}};
  auto& sea = d["spec"]["sites"][2];
  sea["role"] = "primary-candidate";
  sea["lbIP"] = "10.0.0.3";
  sea["taintNodeSelector"] = {{"shipstream.io/site.orders", "sea"}};
  return d;
}

/// my.cnf lines "key = value" (or "key") -> value; every key once.
std::map<std::string, std::string> options_of(const std::string& cnf) {
  std::map<std::string, std::string> out;
  std::size_t pos = 0;
  while (pos < cnf.size()) {
    auto end = cnf.find('\n', pos);
    std::string line = cnf.substr(pos, end - pos);
    pos = end == std::string::npos ? cnf.size() : end + 1;
    if (line.empty() || line[0] == '#' || line[0] == '[') continue;
    auto eq = line.find(" = ");
    std::string key = eq == std::string::npos ? line : line.substr(0, eq);
    BOOST_TEST(!out.contains(key), "option twice: " << key);
    out[key] = eq == std::string::npos ? "" : line.substr(eq + 3);
  }
  return out;
}

std::string cnf_of(const std::vector<json>& objects, const std::string& site) {
  for (const auto& o : objects)
    if (o.at("kind") == "ConfigMap" &&
        o.at("metadata").at("name").get<std::string>().starts_with("mysql-orders-" + site + "-config-"))
      return o.at("data").at("my.cnf").get<std::string>();
  BOOST_FAIL("no my.cnf ConfigMap for " << site);
  return {};
}

}  // namespace

BOOST_AUTO_TEST_SUITE(render_gr)

BOOST_AUTO_TEST_CASE(each_member_my_cnf_joins_the_group_but_never_starts_or_bootstraps_it) {
  auto r = render(gr_doc());
  const std::string seeds =
      "mysql-orders-iad.db.svc.cluster.local:3306,mysql-orders-pdx.db.svc.cluster.local:3306,"
      "mysql-orders-sea.db.svc.cluster.local:3306";
  int server_id = 101;
  for (std::string site : {"iad", "pdx", "sea"}) {
    BOOST_TEST_CONTEXT(site) {
      auto o = options_of(cnf_of(r.objects, site));
      BOOST_TEST(o["plugin-load-add"] == "mysql_clone.so;group_replication.so");
      BOOST_TEST(o["loose-group-replication-start-on-boot"] == "OFF");
      BOOST_TEST(o["loose-group-replication-single-primary-mode"] == "ON");
      // The MySQL communication stack: the members talk over their MySQL port, authenticated as
      // the recovery account; no XCom allowlist refuses a member on another node.
      BOOST_TEST(o["loose-group-replication-communication-stack"] == "MYSQL");
      BOOST_TEST(o["loose-group-replication-local-address"] ==
                 "mysql-orders-" + site + ".db.svc.cluster.local:3306");
      BOOST_TEST(o["report-host"] == "mysql-orders-" + site + ".db.svc.cluster.local");
      BOOST_TEST(o["report-port"] == "3306");
      BOOST_TEST(o["loose-group-replication-group-seeds"] == seeds);
      // The spec's settings, spelled as the operator's SET GLOBAL spells them.
      BOOST_TEST(o["loose-group-replication-consistency"] == "BEFORE");
      BOOST_TEST(o["loose-group-replication-exit-state-action"] == "OFFLINE_MODE");
      BOOST_TEST(o["loose-group-replication-autorejoin-tries"] == "5");
      BOOST_TEST(o["loose-group-replication-recovery-use-ssl"] == "OFF");
      BOOST_TEST(o["loose-group-replication-ssl-mode"] == "DISABLED");
      // Never in the file: a START with it ON makes a second group.
      for (const auto& [k, v] : o) BOOST_TEST(k.find("bootstrap-group") == std::string::npos, k);
      // No pinned name: the operator generates one and sets it before every START.
      BOOST_TEST(!o.contains("loose-group-replication-group-name"));
      // What every server has: fenced at boot, GTIDs, its own server id.
      BOOST_TEST(o["super-read-only"] == "ON");
      BOOST_TEST(o["gtid-mode"] == "ON");
      BOOST_TEST(o["enforce-gtid-consistency"] == "ON");
      BOOST_TEST(o["skip-replica-start"] == "ON");
      BOOST_TEST(o["server-id"] == std::to_string(server_id++));
    }
  }
}

BOOST_AUTO_TEST_CASE(pinned_name_tls_and_a_user_address_reach_the_file) {
  json d = gr_doc();
  d["spec"]["replication"]["groupReplication"]["groupName"] = "9f1c2a3b-1111-4222-8333-0123456789ab";
  d["spec"]["replication"]["tls"] = true;
  d["spec"]["sites"][1]["groupReplication"]["localAddress"] = "10.1.2.3:3306";
  auto r = render(d);
  auto pdx = options_of(cnf_of(r.objects, "pdx"));
  BOOST_TEST(pdx["loose-group-replication-group-name"] == "9f1c2a3b-1111-4222-8333-0123456789ab");
  BOOST_TEST(pdx["loose-group-replication-local-address"] == "10.1.2.3:3306");
  BOOST_TEST(pdx["report-host"] == "10.1.2.3");
  BOOST_TEST(pdx["loose-group-replication-recovery-use-ssl"] == "ON");
  BOOST_TEST(pdx["loose-group-replication-ssl-mode"] == "REQUIRED");
  auto iad = options_of(cnf_of(r.objects, "iad"));
  BOOST_TEST(iad["loose-group-replication-group-seeds"] ==
             "mysql-orders-iad.db.svc.cluster.local:3306,10.1.2.3:3306,"
             "mysql-orders-sea.db.svc.cluster.local:3306");
}

// spec.tls (issue 26): every member's file verifies the group communication and the recovery
// channel against the CA the pods mount, the same values as the operator's SET GLOBAL.
BOOST_AUTO_TEST_CASE(spec_tls_verifies_the_group_and_the_recovery_channel) {
  json d = gr_doc();
  d["spec"]["tls"] = json::object();
  for (bool encrypt : {false, true}) {
    d["spec"]["replication"]["tls"] = encrypt;
    auto r = render(d);
    for (const char* site : {"iad", "pdx", "sea"}) {
      BOOST_TEST_CONTEXT(site << " replication.tls " << encrypt) {
        auto o = options_of(cnf_of(r.objects, site));
        BOOST_TEST(o["loose-group-replication-ssl-mode"] == "VERIFY_IDENTITY");
        BOOST_TEST(o["loose-group-replication-recovery-use-ssl"] == "ON");
        BOOST_TEST(o["loose-group-replication-recovery-ssl-ca"] == "/etc/mysql/tls/ca.crt");
        BOOST_TEST(o["loose-group-replication-recovery-ssl-verify-server-cert"] == "ON");
        BOOST_TEST(o["loose-group-replication-recovery-get-public-key"] == "OFF");
        BOOST_TEST(o["ssl-ca"] == "/etc/mysql/tls/ca.crt");  // the server's own (tls_my_cnf)
      }
    }
  }
}

BOOST_AUTO_TEST_CASE(mysql_conf_cannot_override_the_members_settings) {
  json d = gr_doc();
  d["spec"]["mysqlConf"] = {{"group_replication_bootstrap_group", "ON"},
                            {"loose-group-replication-start-on-boot", "ON"},
                            {"report_host", "elsewhere"},
                            {"max_connections", "900"}};
  auto g = group_of(d);
  auto cnf = render_my_cnf(g, 0);
  std::set<std::string> refused;
  for (const auto& e : cnf.errors) refused.insert(e.path);
  BOOST_TEST((refused == std::set<std::string>{"spec.mysqlConf.group_replication_bootstrap_group",
                                               "spec.mysqlConf.loose-group-replication-start-on-boot",
                                               "spec.mysqlConf.report_host"}),
             br::config::to_string(cnf.errors));
  BOOST_TEST(options_of(cnf.content)["max-connections"] == "900");
  BOOST_TEST(!render_group(g, {}).ok());
  // An async group may set them (it has no plugin to read them): nothing changes there.
  json a = base_doc();
  a["spec"]["mysqlConf"] = {{"report_host", "elsewhere"}};
  BOOST_TEST(render_my_cnf(group_of(a), 0).errors.empty());
}

BOOST_AUTO_TEST_CASE(an_async_group_renders_nothing_of_group_replication) {
  auto g = group_of(base_doc());
  for (std::size_t i = 0; i < g.spec.sites.size(); ++i)
    BOOST_TEST(render_my_cnf(g, i).content == render_my_cnf(g.spec, i).content);
  auto r = render(base_doc());
  BOOST_TEST(!find(r.objects, "Service", "mysql-orders-readers"));
  for (const auto* s : of_kind(r.objects, "Service")) {
    BOOST_TEST(!s->at("spec").contains("clusterIP"));
    for (const auto& p : s->at("spec").at("ports")) BOOST_TEST(p.at("name") != "gr");
  }
  for (const auto* dep : of_kind(r.objects, "Deployment")) {
    auto env = env_map(container(*dep, "sidecar").at("env"));
    BOOST_TEST(!env.contains("REPLICATION_MODE"));
    BOOST_TEST(!dep->at("spec").at("template").at("metadata").at("labels").contains(
        std::string{label_reader}));
  }
  const auto* init = find(r.objects, "ConfigMap", "mysql-orders-init");
  BOOST_TEST_REQUIRE(init);
  BOOST_TEST(init->dump().find("GROUP_REPLICATION_ADMIN") == std::string::npos);
}

BOOST_AUTO_TEST_CASE(site_services_are_headless_with_the_group_port_and_readers_select_online) {
  auto r = render(gr_doc());
  for (std::string site : {"iad", "pdx", "sea"}) {
    BOOST_TEST_CONTEXT(site) {
      const auto* s = find(r.objects, "Service", "mysql-orders-" + site);
      BOOST_TEST_REQUIRE(s);
      const auto& spec = s->at("spec");
      BOOST_TEST(spec.at("clusterIP") == "None");
      // Joiners and recovering members (not Ready) must reach each other.
      BOOST_TEST(spec.at("publishNotReadyAddresses") == true);
      std::map<std::string, int> ports;
      for (const auto& p : spec.at("ports")) ports[p.at("name")] = p.at("port");
      // No XCom port: the group communicates over the mysql port (the MySQL stack).
      BOOST_TEST((ports == std::map<std::string, int>{{"mysql", 3306}, {"sidecar", 8080}}));
      const auto* d = find(r.objects, "Deployment", "mysql-orders-" + site);
      BOOST_TEST_REQUIRE(d);
      std::map<std::string, int> container_ports;
      for (const auto& p : container(*d, "mysql").at("ports"))
        container_ports[p.at("name")] = p.at("containerPort");
      BOOST_TEST((container_ports == std::map<std::string, int>{{"mysql", 3306}}));
    }
  }
  const auto* readers = find(r.objects, "Service", "mysql-orders-readers");
  BOOST_TEST_REQUIRE(readers);
  const auto& spec = readers->at("spec");
  BOOST_TEST(!spec.contains("publishNotReadyAddresses"));
  BOOST_TEST(!spec.contains("clusterIP"));
  json online = {{"app.kubernetes.io/name", "mysql"},
                 {"shipstream.io/failover-group", "orders"},
                 {"shipstream.io/site", "pdx"},
                 {"shipstream.io/role", "replica"},
                 {"shipstream.io/healthy", "yes"},
                 {"shipstream.io/reader", "yes"}};
  BOOST_TEST(selects(spec.at("selector"), online));
  json recovering = online;
  recovering["shipstream.io/reader"] = "no";
  recovering["shipstream.io/healthy"] = "no";
  BOOST_TEST(!selects(spec.at("selector"), recovering));
  // A new pod is no reader until the router has seen it ONLINE.
  const auto* d = find(r.objects, "Deployment", "mysql-orders-iad");
  const auto& labels = d->at("spec").at("template").at("metadata").at("labels");
  BOOST_TEST(labels.at("shipstream.io/reader") == "no");
  BOOST_TEST(!selects(spec.at("selector"), labels));
  BOOST_TEST(!selects(find(r.objects, "Service", "mysql-orders-replicas")->at("spec").at("selector"), labels));
  BOOST_TEST(!selects(find(r.objects, "Service", "mysql-orders-primary")->at("spec").at("selector"), labels));
}

// Issue 23's quorum guard: the PodDisruptionBudget lets a drain take members only while the rest
// keep the majority (maxUnavailable = N - floor(N/2) - 1); async keeps minAvailable 1.
BOOST_AUTO_TEST_CASE(the_pdb_keeps_the_group_s_majority) {
  auto three = render(gr_doc());
  const auto* pdb = find(three.objects, "PodDisruptionBudget", "mysql-orders");
  BOOST_TEST_REQUIRE(pdb);
  BOOST_TEST(pdb->at("spec").at("maxUnavailable") == 1);  // 3 members: quorum 2
  BOOST_TEST(!pdb->at("spec").contains("minAvailable"));
  json five = gr_doc();
  for (std::string s : {"den", "ord"})
    five["spec"]["sites"].push_back({{"name", s}, {"role", "primary-candidate"}, {"zone", "z-" + s},
                                     {"lbIP", "10.0.0." + std::to_string(s.size() + 7)},
                                     {"taintNodeSelector", {{"shipstream.io/site.orders", s}}},
                                     {"storage", {{"size", "10Gi"}}}});
  auto r5 = render(five);
  const auto* pdb5 = find(r5.objects, "PodDisruptionBudget", "mysql-orders");
  BOOST_TEST_REQUIRE(pdb5);
  BOOST_TEST(pdb5->at("spec").at("maxUnavailable") == 2);  // 5 members: quorum 3
  auto ra = render(base_doc());
  const auto* async = find(ra.objects, "PodDisruptionBudget", "mysql-orders");
  BOOST_TEST_REQUIRE(async);
  BOOST_TEST(async->at("spec").at("minAvailable") == 1);
  BOOST_TEST(!async->at("spec").contains("maxUnavailable"));
}

BOOST_AUTO_TEST_CASE(the_sidecar_is_a_group_member_s_sidecar) {
  json d = gr_doc();
  d["spec"]["replication"]["groupReplication"]["groupName"] = "9f1c2a3b-1111-4222-8333-0123456789ab";
  auto r = render(d);
  const auto* dep = find(r.objects, "Deployment", "mysql-orders-pdx");
  BOOST_TEST_REQUIRE(dep);
  const auto& c = container(*dep, "sidecar");
  auto env = env_map(c.at("env"));
  BOOST_TEST(env["REPLICATION_MODE"] == "groupReplication");
  BOOST_TEST(env["GR_MEMBERS"] == "3");
  BOOST_TEST(env["GR_GROUP_NAME"] == "9f1c2a3b-1111-4222-8333-0123456789ab");
  BOOST_TEST(env["MY_SITE"] == "pdx");
  BOOST_TEST(env["MY_POD_NAME"] == "fieldRef:metadata.name");
  BOOST_TEST(env["POD_NAMESPACE"] == "fieldRef:metadata.namespace");
  // The async settings do not apply: the group fences itself, there is no lease among peers.
  for (const char* k : {"PEER_ADDRESSES", "LEASE_TIMEOUT", "PEER_CHECK_INTERVAL", "FENCE_TIMEOUT"})
    BOOST_TEST(!env.contains(k), k);
  // Ready = ONLINE in a quorate view (the sidecar's /ready in this mode).
  BOOST_TEST(c.at("readinessProbe").at("httpGet").at("path") == "/ready");
  BOOST_TEST(c.at("readinessProbe").at("httpGet").at("port") == 8080);
  // The sidecar accepts the environment as rendered.
  for (auto& [k, v] : env)
    if (v.rfind("fieldRef:", 0) == 0) v = k == "POD_NAMESPACE" ? "db" : "pod-0";
  const char* argv[] = {"bloodraven-sidecar"};
  auto flags = br::config::parse_flags(br::config::sidecar_flag_defs(), 1, argv,
                                       [&](const char* n) -> const char* {
                                         auto it = env.find(n);
                                         return it == env.end() ? nullptr : it->second.c_str();
                                       });
  BOOST_TEST_REQUIRE((flags.what == br::config::parsed_flags::action::run), flags.error);
  auto cfg = br::config::build_sidecar_config(
      flags, [](const std::string&) { return std::optional<std::string>{"x\n"}; });
  BOOST_TEST_REQUIRE(cfg.config.has_value(), cfg.error);
  BOOST_TEST(cfg.config->group_replication);
  BOOST_TEST(cfg.config->gr_members == 3u);
  // Without a pinned name the sidecar does not check it.
  auto plain = render(gr_doc());
  auto penv = env_map(container(*find(plain.objects, "Deployment", "mysql-orders-pdx"), "sidecar").at("env"));
  BOOST_TEST(!penv.contains("GR_GROUP_NAME"));
}

BOOST_AUTO_TEST_CASE(accounts_get_the_group_replication_grants_only_in_this_mode) {
  auto r = render(gr_doc());
  const auto* init = find(r.objects, "ConfigMap", "mysql-orders-init");
  BOOST_TEST_REQUIRE(init);
  for (const char* key : {"bloodraven-users.sh", "init-datadir.sh"}) {
    BOOST_TEST_CONTEXT(key) {
      const std::string script = init->at("data").at(key);
      BOOST_TEST(script == (std::string{key} == "init-datadir.sh" ? init_datadir_script(true)
                                                                  : users_script(true)));
      BOOST_TEST(script.find("GRANT GROUP_REPLICATION_ADMIN ON *.* TO '$u'@'%';") !=
                 std::string::npos);
      // The recovery account (and the operator's, when there is no replication account): a
      // joiner's clone runs as it, and the MySQL communication stack's connections.
      BOOST_TEST(script.find("GRANT REPLICATION SLAVE, BACKUP_ADMIN, CLONE_ADMIN, "
                             "GROUP_REPLICATION_STREAM ON *.*") != std::string::npos);
    }
  }
  BOOST_TEST(users_script(false).find("GROUP_REPLICATION_ADMIN") == std::string::npos);
  BOOST_TEST(users_script(false).find("GROUP_REPLICATION_STREAM") == std::string::npos);
  BOOST_TEST(users_script(false) == users_script());
}

BOOST_AUTO_TEST_CASE(reserved_and_refused_names) {
  json d = gr_doc();
  d["spec"]["sites"][2]["name"] = "readers";
  d["spec"]["sites"][2]["taintNodeSelector"]["shipstream.io/site.orders"] = "readers";
  auto r = render_group(group_of(d), {});
  BOOST_TEST(!r.ok());
  BOOST_TEST(br::config::to_string(r.errors).find("spec.sites[2].name") != std::string::npos,
             br::config::to_string(r.errors));
  BOOST_TEST(readers_service_name("orders") == "mysql-orders-readers");
  BOOST_TEST(gr_local_address("orders", "iad", "db") == "mysql-orders-iad.db.svc.cluster.local:3306");
}

BOOST_AUTO_TEST_SUITE_END()
