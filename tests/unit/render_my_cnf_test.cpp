// Rendering: generated my.cnf content and the content-addressed ConfigMap name.
#include <boost/test/unit_test.hpp>
#include <algorithm>
#include <set>
#include <sstream>

#include "config/render/content_hash.hpp"
#include "config/render/my_cnf.hpp"
#include "config/render/names.hpp"
#include "tests/unit/render_test_util.hpp"

using namespace br::render;
using namespace render_test;

namespace {

/// my.cnf text -> option -> value ("" for bare flags); counts duplicates in `dups`.
std::map<std::string, std::string> parse_cnf(const std::string& text, int* dups = nullptr) {
  std::map<std::string, std::string> out;
  std::istringstream in{text};
  std::string line, section;
  while (std::getline(in, line)) {
    if (line.empty() || line[0] == '#') continue;
    if (line[0] == '[') {
      section = line;
      continue;
    }
    BOOST_TEST(section == "[mysqld]");
    auto eq = line.find(" = ");
    std::string k = eq == std::string::npos ? line : line.substr(0, eq);
    std::string v = eq == std::string::npos ? "" : line.substr(eq + 3);
    if (out.contains(k) && dups) ++*dups;
    out[k] = v;
  }
  return out;
}

std::map<std::string, std::string> cnf_of(const json& doc, std::size_t site) {
  auto res = render_my_cnf(group_of(doc).spec, site);
  BOOST_TEST_REQUIRE(res.errors.empty(), br::config::to_string(res.errors));
  int dups = 0;
  auto m = parse_cnf(res.content, &dups);
  BOOST_TEST(dups == 0);
  return m;
}

/// The per-site my.cnf ConfigMaps (not the group's init ConfigMap).
std::vector<const json*> my_cnf_maps(const std::vector<json>& objects) {
  std::vector<const json*> out;
  for (const auto* cm : of_kind(objects, "ConfigMap"))
    if ((*cm)["data"].contains("my.cnf")) out.push_back(cm);
  return out;
}

/// site -> {ConfigMap name, my.cnf content} from a full render.
std::map<std::string, std::pair<std::string, std::string>> config_maps(const json& doc) {
  std::map<std::string, std::pair<std::string, std::string>> out;
  auto r = render(doc);
  for (const auto* cm : my_cnf_maps(r.objects))
    out[(*cm)["metadata"]["labels"]["shipstream.io/site"]] = {(*cm)["metadata"]["name"],
                                                              (*cm)["data"]["my.cnf"]};
  return out;
}

}  // namespace

BOOST_AUTO_TEST_SUITE(render_my_cnf_suite)

BOOST_AUTO_TEST_CASE(boots_fenced_with_gtid_replication) {
  auto doc = base_doc();
  for (std::size_t i = 0; i < 3; ++i) {
    BOOST_TEST_CONTEXT("site " << i) {
      auto m = cnf_of(doc, i);
      BOOST_TEST(m["super-read-only"] == "ON");  // S5
      BOOST_TEST(m["read-only"] == "ON");
      BOOST_TEST(m["gtid-mode"] == "ON");
      BOOST_TEST(m["enforce-gtid-consistency"] == "ON");
      BOOST_TEST(m["log-bin"] == "/var/lib/mysql/mysql-bin");
      BOOST_TEST(m["log-replica-updates"] == "ON");
      BOOST_TEST(m["skip-replica-start"] == "ON");
      BOOST_TEST(m["plugin-load-add"] == "mysql_clone.so");
      BOOST_TEST(m["sync-binlog"] == "1");
      BOOST_TEST(m.contains("skip-name-resolve"));
      BOOST_TEST(m["server-id"] == std::to_string(101 + i));
    }
  }
}

BOOST_AUTO_TEST_CASE(overrides_merge_group_then_site) {
  auto doc = base_doc();
  doc["spec"]["mysqlConf"] = {
      {"innodb_buffer_pool_size", "2G"}, {"sync_binlog", "0"}, {"max-connections", "900"}};
  doc["spec"]["sites"][2]["mysqlConf"] = {{"innodb-buffer-pool-size", "8G"}};
  auto iad = cnf_of(doc, 0);
  auto sea = cnf_of(doc, 2);
  BOOST_TEST(iad["innodb-buffer-pool-size"] == "2G");
  BOOST_TEST(sea["innodb-buffer-pool-size"] == "8G");  // site wins over group
  BOOST_TEST(iad["sync-binlog"] == "0");               // '_' spelling replaces the default
  BOOST_TEST(iad["max-connections"] == "900");
  BOOST_TEST(!iad.contains("sync_binlog"));
  BOOST_TEST(!iad.contains("innodb_buffer_pool_size"));
}

BOOST_AUTO_TEST_CASE(refused_overrides_keep_the_fence) {
  auto doc = base_doc();
  doc["spec"]["mysqlConf"] = {
      {"super_read_only", "OFF"}, {"server_id", "7"}, {"max_connections", "5\nread_only=OFF"}};
  auto res = render_my_cnf(group_of(doc).spec, 0);
  BOOST_TEST(res.errors.size() == 3u, br::config::to_string(res.errors));
  auto m = parse_cnf(res.content);
  BOOST_TEST(m["super-read-only"] == "ON");
  BOOST_TEST(m["read-only"] == "ON");
  BOOST_TEST(m["server-id"] == "101");
  BOOST_TEST(m["max-connections"] == "500");
}

// spec.replication.semiSync (issue 25): both plugins, the receiver on, the source off at boot
// (the operator turns it on on the promoted primary), AFTER_SYNC, K, the timeout the operator counts
// as never falling back, wait_no_replica; no loose- prefix (a missing plugin fails the boot).
BOOST_AUTO_TEST_CASE(semi_sync_renders_plugins_and_operator_owned_options) {
  auto doc = base_doc();
  auto off = cnf_of(doc, 0);
  for (const auto& [k, v] : off) BOOST_TEST(k.find("semi-sync") == std::string::npos, k);
  doc["spec"]["replication"]["semiSync"] = {{"enabled", true}, {"waitForReplicaCount", 2}};
  for (std::size_t i = 0; i < 3; ++i) {
    BOOST_TEST_CONTEXT("site " << i) {
      auto m = cnf_of(doc, i);
      BOOST_TEST(m["plugin-load-add"] == "mysql_clone.so;semisync_source.so;semisync_replica.so");
      BOOST_TEST(m["rpl-semi-sync-replica-enabled"] == "ON");
      BOOST_TEST(m["rpl-semi-sync-source-enabled"] == "OFF");
      BOOST_TEST(m["rpl-semi-sync-source-wait-point"] == "AFTER_SYNC");
      BOOST_TEST(m["rpl-semi-sync-source-wait-for-replica-count"] == "2");
      BOOST_TEST(m["rpl-semi-sync-source-timeout"] == "4294967295");
      BOOST_TEST(m["rpl-semi-sync-source-wait-no-replica"] == "ON");
      BOOST_TEST(m["super-read-only"] == "ON");
      for (const auto& [k, v] : m) BOOST_TEST(!k.starts_with("loose-"), k);
    }
  }
  // Operator-owned while enabled: refused with their path, the rendered value kept.
  doc["spec"]["mysqlConf"] = {{"rpl_semi_sync_source_timeout", "1000"},
                              {"loose-rpl-semi-sync-source-enabled", "ON"},
                              {"plugin_load_add", "audit_log.so"},
                              {"max_connections", "900"}};
  doc["spec"]["sites"][1]["mysqlConf"] = {{"rpl-semi-sync-source-wait-point", "AFTER_COMMIT"}};
  auto res = render_my_cnf(group_of(doc).spec, 1);
  BOOST_TEST(res.errors.size() == 4u, br::config::to_string(res.errors));
  for (const char* path :
       {"spec.mysqlConf.rpl_semi_sync_source_timeout", "spec.mysqlConf.loose-rpl-semi-sync-source-enabled",
        "spec.mysqlConf.plugin_load_add", "spec.sites[1].mysqlConf.rpl-semi-sync-source-wait-point"})
    BOOST_TEST(std::any_of(res.errors.begin(), res.errors.end(),
                           [&](const auto& e) {
                             return e.path == path &&
                                    e.message.find("spec.replication.semiSync") != std::string::npos;
                           }),
               path);
  auto m = parse_cnf(res.content);
  BOOST_TEST(m["rpl-semi-sync-source-timeout"] == "4294967295");
  BOOST_TEST(m["rpl-semi-sync-source-wait-point"] == "AFTER_SYNC");
  BOOST_TEST(!m.contains("loose-rpl-semi-sync-source-enabled"));
  BOOST_TEST(m["plugin-load-add"] == "mysql_clone.so;semisync_source.so;semisync_replica.so");
  BOOST_TEST(m["max-connections"] == "900");
  // Disabled: the same keys are the user's again (plugin-load-add as before).
  doc["spec"]["replication"]["semiSync"]["enabled"] = false;
  doc["spec"]["sites"][1].erase("mysqlConf");
  doc["spec"]["mysqlConf"] = {{"plugin_load_add", "mysql_clone.so;audit_log.so"}};
  BOOST_TEST(cnf_of(doc, 1)["plugin-load-add"] == "mysql_clone.so;audit_log.so");
}

BOOST_AUTO_TEST_CASE(config_map_name_changes_exactly_when_content_changes) {
  struct row {
    const char* what;
    std::function<void(json&)> edit;
    std::set<std::string> changed;  // sites whose my.cnf must change
  };
  const row rows[] = {
      {"nothing", [](json&) {}, {}},
      {"pollInterval", [](json& d) { d["spec"]["pollInterval"] = "3s"; }, {}},
      {"dns ttl", [](json& d) { d["spec"]["dns"]["ttl"] = 30; }, {}},
      {"lbIP", [](json& d) { d["spec"]["sites"][0]["lbIP"] = "10.9.9.9"; }, {}},
      {"image", [](json& d) { d["spec"]["image"] = "mysql:9.8"; }, {}},
      {"group mysqlConf",
       [](json& d) { d["spec"]["mysqlConf"]["max_connections"] = "800"; },
       {"iad", "pdx", "sea"}},
      {"site mysqlConf",
       [](json& d) { d["spec"]["sites"][2]["mysqlConf"]["wait_timeout"] = "60"; },
       {"sea"}},
      {"default restated under the other spelling",
       [](json& d) { d["spec"]["mysqlConf"]["sync_binlog"] = "1"; },
       {}},
      {"site order swap (server-id follows the index)",
       [](json& d) { std::swap(d["spec"]["sites"][0], d["spec"]["sites"][1]); },
       {"iad", "pdx"}},
  };
  auto before = config_maps(base_doc());
  for (const auto& r : rows) {
    BOOST_TEST_CONTEXT(r.what) {
      auto doc = base_doc();
      r.edit(doc);
      auto after = config_maps(doc);
      BOOST_TEST_REQUIRE(after.size() == before.size());
      for (const auto& [site, now] : after) {
        const auto& was = before.at(site);
        bool content_changed = now.second != was.second;
        bool name_changed = now.first != was.first;
        BOOST_TEST(content_changed == r.changed.contains(site), site);
        BOOST_TEST(name_changed == content_changed, site);
        BOOST_TEST(now.first == config_map_name("orders", site, now.second));
      }
    }
  }
}

BOOST_AUTO_TEST_CASE(deployment_mounts_its_config_map) {
  auto r = render(base_doc());
  for (const auto* cm : my_cnf_maps(r.objects)) {
    std::string site = (*cm)["metadata"]["labels"]["shipstream.io/site"];
    BOOST_TEST_CONTEXT(site) {
      BOOST_TEST((*cm)["immutable"] == true);
      std::string content = (*cm)["data"]["my.cnf"];
      BOOST_TEST((*cm)["metadata"]["annotations"]["shipstream.io/config-hash"] ==
                 content_hash(content));
      const auto* dep = find(r.objects, "Deployment", "mysql-orders-" + site);
      BOOST_TEST_REQUIRE(dep);
      std::string mounted;
      for (const auto& v : (*dep)["spec"]["template"]["spec"]["volumes"])
        if (v["name"] == "config") mounted = v["configMap"]["name"];
      BOOST_TEST(mounted == (*cm)["metadata"]["name"]);
      BOOST_TEST(
          (*dep)["spec"]["template"]["metadata"]["annotations"]["shipstream.io/config-hash"] ==
          content_hash(content));
    }
  }
}

BOOST_AUTO_TEST_CASE(content_hash_is_stable_and_sensitive) {
  BOOST_TEST(content_hash("") == "cbf29ce484222325");   // FNV-1a 64 offset basis
  BOOST_TEST(content_hash("a") == "af63dc4c8601ec8c");  // published FNV-1a test vector
  BOOST_TEST(content_hash("ab") != content_hash("ba"));
}

BOOST_AUTO_TEST_CASE(unused_config_maps_wait_for_every_deployment) {
  auto old_doc = base_doc();
  auto new_doc = base_doc();
  new_doc["spec"]["mysqlConf"]["max_connections"] = "800";
  auto old_r = render(old_doc);
  auto new_r = render(new_doc);
  std::vector<std::string> live;
  for (const auto* cm : my_cnf_maps(old_r.objects))
    live.push_back((*cm)["metadata"]["name"]);
  for (const auto* cm : my_cnf_maps(new_r.objects))
    live.push_back((*cm)["metadata"]["name"]);
  // Mid ordered update: pdx already rolled, iad and sea still on the old config.
  std::vector<json> deployments;
  for (const char* site : {"iad", "sea"})
    deployments.push_back(*find(old_r.objects, "Deployment", std::string{"mysql-orders-"} + site));
  deployments.push_back(*find(new_r.objects, "Deployment", "mysql-orders-pdx"));
  auto unused = unused_config_maps(live, deployments, new_r.objects);
  std::string old_pdx;
  for (const auto* cm : my_cnf_maps(old_r.objects))
    if ((*cm)["metadata"]["labels"]["shipstream.io/site"] == "pdx")
      old_pdx = (*cm)["metadata"]["name"];
  BOOST_TEST(unused == std::vector<std::string>{old_pdx}, boost::test_tools::per_element());
}

// spec.tls (issue 26): the Secret's files under /etc/mysql/tls/ and require-secure-transport per
// the field, operator-owned while spec.tls is set; nothing without it.
BOOST_AUTO_TEST_CASE(tls_renders_certificate_files_and_transport_rule) {
  auto doc = base_doc();
  auto off = cnf_of(doc, 0);
  for (const auto& [k, v] : off)
    BOOST_TEST((!k.starts_with("ssl-") && k != "require-secure-transport"), k);
  struct row {
    json tls;
    const char* require;
  };
  const row rows[] = {{json::object(), "ON"},
                      {{{"requireSecureTransport", true}}, "ON"},
                      {{{"requireSecureTransport", false}}, "OFF"}};
  for (const auto& r : rows) {
    BOOST_TEST_CONTEXT(r.tls.dump()) {
      doc["spec"]["tls"] = r.tls;
      for (std::size_t i = 0; i < 3; ++i) {
        auto m = cnf_of(doc, i);
        BOOST_TEST(m["ssl-ca"] == "/etc/mysql/tls/ca.crt");
        BOOST_TEST(m["ssl-cert"] == "/etc/mysql/tls/tls.crt");
        BOOST_TEST(m["ssl-key"] == "/etc/mysql/tls/tls.key");
        BOOST_TEST(m["require-secure-transport"] == r.require);
      }
    }
  }
  // Operator-owned with spec.tls: refused with their path, the rendered values kept.
  doc["spec"]["tls"] = json::object();
  doc["spec"]["mysqlConf"] = {{"require_secure_transport", "OFF"},
                              {"loose-ssl-ca", "/tmp/ca.pem"},
                              {"max_connections", "900"}};
  doc["spec"]["sites"][1]["mysqlConf"] = {{"ssl_cert", "/tmp/c.pem"}};
  auto res = render_my_cnf(group_of(doc).spec, 1);
  BOOST_TEST(res.errors.size() == 3u, br::config::to_string(res.errors));
  for (const char* path : {"spec.mysqlConf.require_secure_transport", "spec.mysqlConf.loose-ssl-ca",
                           "spec.sites[1].mysqlConf.ssl_cert"})
    BOOST_TEST(std::any_of(res.errors.begin(), res.errors.end(),
                           [&](const auto& e) {
                             return e.path == path &&
                                    e.message.find("spec.tls") != std::string::npos;
                           }),
               path);
  auto m = parse_cnf(res.content);
  BOOST_TEST(m["require-secure-transport"] == "ON");
  BOOST_TEST(m["ssl-cert"] == "/etc/mysql/tls/tls.crt");
  BOOST_TEST(!m.contains("loose-ssl-ca"));
  BOOST_TEST(m["max-connections"] == "900");
  // Without spec.tls the same keys are ordinary overrides.
  doc["spec"].erase("tls");
  BOOST_TEST(render_my_cnf(group_of(doc).spec, 1).errors.empty());
}

BOOST_AUTO_TEST_SUITE_END()
