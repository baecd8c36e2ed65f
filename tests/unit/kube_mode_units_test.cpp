// Pure pieces of Kubernetes mode: credentials from Secrets, status merge/compose, anti-flap
// annotations, state rehydration, and what the group source makes of a watch event.
#include <boost/test/unit_test.hpp>

#include <map>

#include "actors/operator/kube/group_source.hpp"
#include "actors/operator/kube/core/kube_credentials.hpp"
#include "actors/operator/kube/core/kube_state_store.hpp"
#include "actors/operator/kube/core/status_writer.hpp"
#include "config/failover_group.hpp"
#include "config/rfc3339.hpp"

using namespace br;
using nlohmann::json;

namespace {

kube::result<json> secret_with(std::map<std::string, std::string> b64data) {
  json d = json::object();
  for (auto& [k, v] : b64data) d[k] = v;
  return json{{"data", d}};
}

kube::result<json> not_found() { return kube::api_error{404, "NotFound", "secrets not found"}; }

config::group_spec spec_with_operator_secret(const std::string& name) {
  config::group_spec s;
  s.credentials = config::credentials_spec{};
  s.credentials->operator_secret = name;
  return s;
}

wall_time at_seconds(int64_t s) { return wall_time{std::chrono::seconds{s}}; }

}  // namespace

BOOST_AUTO_TEST_SUITE(kube_mode_units)

BOOST_AUTO_TEST_CASE(base64_encodes_with_padding_and_round_trips) {
  BOOST_TEST(base64_encode("bloodraven") == "Ymxvb2RyYXZlbg==");
  BOOST_TEST(base64_encode("pw") == "cHc=");
  BOOST_TEST(base64_encode("") == "");
  for (const std::string& s : std::vector<std::string>{"a", "ab", "abc", "abcd", std::string("\0\xff\x10", 3)})
    BOOST_TEST(*base64_decode(base64_encode(s)) == s);
}

BOOST_AUTO_TEST_CASE(base64_decodes_with_and_without_padding) {
  BOOST_TEST(*base64_decode("Ymxvb2RyYXZlbg==") == "bloodraven");
  BOOST_TEST(*base64_decode("Ymxvb2RyYXZlbg") == "bloodraven");
  BOOST_TEST(*base64_decode("cHc=") == "pw");
  BOOST_TEST(*base64_decode("") == "");
  BOOST_TEST(!base64_decode("c$w=").has_value());
}

BOOST_AUTO_TEST_CASE(dsn_account_parsing) {
  std::string u, p;
  BOOST_TEST(parse_dsn_account("op:s3cr@t:x@tcp(mysql:3306)/app?parseTime=true", u, p));
  BOOST_TEST(u == "op");
  BOOST_TEST(p == "s3cr@t:x");
  BOOST_TEST(parse_dsn_account("root@tcp(h:1)/", u, p));
  BOOST_TEST(u == "root");
  BOOST_TEST(p == "");
  BOOST_TEST(!parse_dsn_account("tcp(h:1)/db", u, p));
}

BOOST_AUTO_TEST_CASE(operator_secret_keys_and_problems) {
  group_credentials out;
  // username "op" = b3A=, password "pw" = cHc=, repl "rp" = cnA=, "rpw" = cnB3
  auto p = resolve_group_credentials(
      spec_with_operator_secret("ops"),
      [](const std::string& n) {
        BOOST_TEST(n == "ops");
        return secret_with({{"username", "b3A="}, {"password", "cHc="},
                            {"MYSQL_REPLICATION_USER", "cnA="},
                            {"MYSQL_REPLICATION_PASSWORD", "cnB3"}});
      },
      out);
  BOOST_TEST(!p);
  BOOST_TEST(out.operator_user == "op");
  BOOST_TEST(out.operator_password == "pw");
  BOOST_TEST(out.replication_user == "rp");
  BOOST_TEST(out.replication_password == "rpw");

  p = resolve_group_credentials(spec_with_operator_secret("ops"),
                                [](const std::string&) { return not_found(); }, out);
  BOOST_TEST(p.reason == "SecretNotFound");
  BOOST_TEST(p.message.find("\"ops\"") != std::string::npos);

  p = resolve_group_credentials(spec_with_operator_secret("ops"),
                                [](const std::string&) { return secret_with({{"username", "b3A="}}); },
                                out);
  BOOST_TEST(p.reason == "SecretMissingKey");
  BOOST_TEST(p.message.find("password") != std::string::npos);

  config::group_spec legacy;
  legacy.secret_name = "legacy";
  p = resolve_group_credentials(
      legacy,
      // "u:p@tcp(x:3306)/db"
      [](const std::string&) { return secret_with({{"dsn", "dTpwQHRjcCh4OjMzMDYpL2Ri"}}); }, out);
  BOOST_TEST(!p);
  BOOST_TEST(out.operator_user == "u");
  BOOST_TEST(out.operator_password == "p");
  p = resolve_group_credentials(legacy, [](const std::string&) { return secret_with({}); }, out);
  BOOST_TEST(p.reason == "SecretMissingKey");
}

// Review finding 10: a credentials Secret value the pods' init SQL could not take stops the
// group with an Event naming the Secret and the key (the group is not started, nothing rendered).
BOOST_AUTO_TEST_CASE(credentials_values_the_init_sql_cannot_take_are_refused) {
  group_credentials out;
  struct row {
    std::map<std::string, std::string> data;  // base64
    std::string says;
  };
  // "op" = b3A=, "pw" = cHc=, "a\nb" = YQpi, "o'p" = bydw, "x\0y" = eAB5
  const std::vector<row> rows{
      {{{"username", "b3A="}, {"password", "YQpi"}}, "Secret \"ops\" key \"password\" holds a control character"},
      {{{"username", "bydw"}, {"password", "cHc="}}, "Secret \"ops\" key \"username\" is not a MySQL user name"},
      {{{"username", "b3A="}, {"password", "cHc="}, {"MYSQL_ROOT_PASSWORD", "eAB5"}},
       "key \"MYSQL_ROOT_PASSWORD\" holds a control character (0x00"},
      {{{"username", "b3A="}, {"password", "cHc="}, {"MYSQL_MONITOR_USER", "b3A="}},
       "key \"MYSQL_MONITOR_USER\" names an account but key \"MYSQL_MONITOR_PASSWORD\""},
  };
  for (const auto& r : rows) {
    auto p = resolve_group_credentials(spec_with_operator_secret("ops"),
                                       [&](const std::string&) { return secret_with(r.data); }, out);
    BOOST_TEST(p.reason == "CredentialReconcileFailed", r.says);
    BOOST_TEST(p.message.find(r.says) != std::string::npos, p.message);
  }
  // The legacy Secret's account keys go into the init SQL too.
  config::group_spec legacy;
  legacy.secret_name = "legacy";
  auto p = resolve_group_credentials(
      legacy,
      [](const std::string&) {
        return secret_with({{"dsn", "dTpwQHRjcCh4OjMzMDYpL2Ri"}, {"MYSQL_REPLICATION_PASSWORD", "YQpi"}});
      },
      out);
  BOOST_TEST(p.reason == "CredentialReconcileFailed");
  BOOST_TEST(p.message.find("Secret \"legacy\" key \"MYSQL_REPLICATION_PASSWORD\"") != std::string::npos,
             p.message);
}

BOOST_AUTO_TEST_CASE(merge_status_clears_owned_members_only_for_a_coordinator_status) {
  json current = {{"activeSite", "iad"}, {"epoch", 4}, {"updatePhase", "Rolling"}};
  json desired = {{"epoch", 5}, {"deposingSite", "iad"}};  // activeSite "" is omitted
  auto full = merge_status(current, desired, true);
  BOOST_TEST(!full.contains("activeSite"));
  BOOST_TEST(full["epoch"] == 5);
  BOOST_TEST(full["updatePhase"] == "Rolling");
  auto partial = merge_status(current, {{"conditions", json::array()}}, false);
  BOOST_TEST(partial["activeSite"] == "iad");
  BOOST_TEST(partial["epoch"] == 4);
}

BOOST_AUTO_TEST_CASE(merge_status_merges_the_dragonfly_part_member_by_member) {
  json current = {{"activeSite", "iad"},
                  {"dragonfly", {{"phase", "Degraded"}, {"masterSite", "iad"},
                                 {"lastFailover", {{"toSite", "iad"}}}}}};
  // The manager after an operator restart: no lastFailover sent, the stored one stays.
  auto merged = merge_status(current, {{"dragonfly", {{"phase", "Ready"}, {"masterSite", "pdx"}}}}, true);
  BOOST_TEST(merged["dragonfly"]["phase"] == "Ready");
  BOOST_TEST(merged["dragonfly"]["masterSite"] == "pdx");
  BOOST_TEST(merged["dragonfly"]["lastFailover"]["toSite"] == "iad");
  // A coordinator status without the part leaves status.dragonfly alone; null removes it.
  BOOST_TEST(merge_status(current, {{"epoch", 2}}, true)["dragonfly"]["phase"] == "Degraded");
  BOOST_TEST(!merge_status(current, {{"dragonfly", nullptr}}, true).contains("dragonfly"));
}

BOOST_AUTO_TEST_CASE(dragonfly_password_from_the_auth_secret) {
  auto spec = spec_with_operator_secret("ops");
  spec.dragonfly.enabled = true;
  spec.dragonfly.auth = config::dragonfly_auth_spec{"df", "pass"};
  auto get = [](const std::string& n) {
    if (n == "df") return secret_with({{"pass", "ZGZwdw=="}});  // "dfpw"
    return secret_with({{"username", "b3A="}, {"password", "cHc="}});
  };
  group_credentials out;
  BOOST_TEST(!resolve_group_credentials(spec, get, out));
  BOOST_TEST(out.dragonfly_password == "dfpw");
  spec.dragonfly.auth->password_key = "other";
  auto p = resolve_group_credentials(spec, get, out);
  BOOST_TEST(p.reason == "SecretMissingKey");
  BOOST_TEST(p.message.find("\"other\"") != std::string::npos, p.message);
  spec.dragonfly.enabled = false;  // not read when disabled
  BOOST_TEST(!resolve_group_credentials(spec, get, out));
  BOOST_TEST(out.dragonfly_password.empty());
}

BOOST_AUTO_TEST_CASE(compose_status_lets_spec_conditions_win_by_type) {
  json coord = {{"conditions", json::array({{{"type", "Ready"}, {"status", "True"}},
                                            {{"type", "Degraded"}, {"status", "False"}}})}};
  json spec = json::array({{{"type", "Ready"}, {"status", "False"}, {"reason", "InvalidSpec"}}});
  auto out = compose_status(coord, spec);
  BOOST_REQUIRE(out["conditions"].size() == 2u);
  BOOST_TEST(out["conditions"][0]["reason"] == "InvalidSpec");
  BOOST_TEST(out["conditions"][1]["type"] == "Degraded");
  BOOST_TEST(compose_status(coord, json::array()) == coord);
}

BOOST_AUTO_TEST_CASE(anti_flap_annotations_are_monotone_and_second_precision) {
  json status = {{"lastFailover", "2026-01-02T03:04:05.750Z"}, {"lastFailoverTarget", "pdx"}};
  auto patch = anti_flap_patch(json::object(), status);
  BOOST_REQUIRE(!patch.is_null());
  auto ann = patch["metadata"]["annotations"];
  BOOST_TEST(ann[annotation_last_failover] == "2026-01-02T03:04:05Z");
  BOOST_TEST(ann[annotation_last_failover_target] == "pdx");
  // Already recorded: nothing to do.
  BOOST_TEST(anti_flap_patch(ann, status).is_null());
  // A newer annotation is never overwritten by an older status.
  json newer = {{annotation_last_failover, "2026-01-02T04:00:00Z"},
                {annotation_last_failover_target, "iad"}};
  BOOST_TEST(anti_flap_patch(newer, status).is_null());
  // An older annotation is.
  json older = {{annotation_last_failover, "2026-01-01T00:00:00Z"},
                {annotation_last_failover_target, "iad"}};
  BOOST_TEST(!anti_flap_patch(older, status).is_null());
  BOOST_TEST(anti_flap_patch(json::object(), json::object()).is_null());
}

BOOST_AUTO_TEST_CASE(rehydrate_takes_the_highest_epoch_and_newest_failover_record) {
  std::vector<std::string> warnings;
  const auto now = at_seconds(1'800'000'000);
  durable_state cm;
  cm.view.epoch = 7;
  cm.view.active_site = "pdx";
  cm.last_failover_ms = (1'800'000'000LL - 600) * 1000;
  cm.last_failover_target = "pdx";
  // Status lags (epoch 6); annotations carry a newer failover (iad, 100 s ago).
  json obj = {{"status", {{"epoch", 6}, {"activeSite", "iad"}}},
              {"metadata",
               {{"annotations",
                 {{annotation_last_failover,
                   config::format_rfc3339(config::timestamp{std::chrono::seconds{1'800'000'000 - 100}})},
                  {annotation_last_failover_target, "iad"}}}}}};
  auto d = rehydrate_state(cm, obj, now, std::chrono::minutes(5), warnings);
  BOOST_TEST(d.view.epoch == 7u);
  BOOST_TEST(d.view.active_site == "pdx");
  BOOST_TEST(d.last_failover_target == "iad");
  BOOST_TEST(d.last_failover_ms == (1'800'000'000LL - 100) * 1000);
  BOOST_REQUIRE(!warnings.empty());
  BOOST_TEST(warnings.back().find("restored lastFailover from out-of-band annotations") == 0u);

  // ConfigMap lost: the status copy restores the view (S6: the epoch never goes back).
  warnings.clear();
  auto lost = rehydrate_state(caf::none, obj, now, std::chrono::minutes(5), warnings);
  BOOST_TEST(lost.view.epoch == 6u);
  BOOST_TEST(lost.view.active_site == "iad");

  // A record stamped far in the future is refused.
  warnings.clear();
  json future = {{"metadata",
                  {{"annotations",
                    {{annotation_last_failover, "2030-01-01T00:00:00Z"},
                     {annotation_last_failover_target, "iad"}}}}}};
  auto f = rehydrate_state(caf::none, future, now, std::chrono::minutes(5), warnings);
  BOOST_TEST(f.last_failover_ms == 0);
}

BOOST_AUTO_TEST_CASE(watch_event_to_desired_group) {
  json obj = {{"apiVersion", "shipstream.io/v1alpha1"},
              {"kind", "MysqlFailoverGroup"},
              {"metadata", {{"name", "g"}, {"namespace", "ns1"}, {"uid", "u-1"}, {"generation", 3}}},
              {"spec",
               {{"secretName", "s"},
                {"dns", {{"hostname", "g.example.com"}}},
                {"sites", json::array({{{"name", "a"}, {"zone", "z"}, {"lbIP", "1.1.1.1"},
                                        {"taintNodeSelector", {{"shipstream.io/site.g", "a"}}},
                                        {"storage", {{"size", "1Gi"}}}},
                                       {{"name", "a"}, {"zone", "z"}, {"lbIP", "1.1.1.2"},
                                        {"taintNodeSelector", {{"shipstream.io/site.g", "b"}}},
                                        {"storage", {{"size", "1Gi"}}}}})}}}};
  auto bad = desire_from_event("ADDED", obj);
  BOOST_TEST(bad.ns == "ns1");
  BOOST_TEST(bad.uid == "u-1");
  BOOST_TEST(bad.generation == 3);
  BOOST_TEST(!bad.valid);
  auto expected = config::load_group_json(obj.dump(), config::run_mode::kubernetes).errors;
  BOOST_TEST(bad.errors == expected);
  auto cond = invalid_spec_condition(bad.errors, "2026-01-01T00:00:00Z");
  BOOST_TEST(cond["reason"] == "InvalidSpec");
  BOOST_TEST(cond["message"].get<std::string>().find("spec.sites[1].name") != std::string::npos);

  obj["spec"]["sites"][1]["name"] = "b";
  auto good = desire_from_event("MODIFIED", obj);
  BOOST_TEST(good.valid);
  BOOST_TEST(good.spec.sites.size() == 2u);
  auto rt = runtime_spec(good.spec, "ns1", "g", service_site_address);
  BOOST_TEST(rt.sites[1].address->host == "mysql-g-b.ns1.svc.cluster.local");
  BOOST_TEST(rt.sites[1].address->port == 3306);
  BOOST_TEST(rt.sites[1].sidecar_address.empty());  // no sidecar function: nothing to push to
  auto with_sidecars = runtime_spec(good.spec, "ns1", "g", service_site_address, service_sidecar_address);
  BOOST_TEST(with_sidecars.sites[0].sidecar_address == "mysql-g-a.ns1.svc.cluster.local:8080");
  BOOST_TEST(with_sidecars.sites[1].sidecar_address == "mysql-g-b.ns1.svc.cluster.local:8080");
  BOOST_TEST(desire_from_event("DELETED", obj).deleted);
}

BOOST_AUTO_TEST_SUITE_END()
