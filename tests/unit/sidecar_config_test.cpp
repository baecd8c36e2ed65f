// bloodraven-sidecar configuration: clamps, legacy PEER_ADDRESS, credentials and token files, errors.
#include <boost/test/unit_test.hpp>

#include <map>

#include "config/duration.hpp"
#include "actors/sidecar/runtime/sidecar_api.hpp"
#include "config/sidecar_config.hpp"

using namespace br::config;
using namespace std::chrono_literals;

namespace {

struct env_case {
  std::map<std::string, std::string> env;
  std::map<std::string, std::string> files;
};

struct built {
  parsed_flags flags;
  sidecar_config_result result;
};

built build(const env_case& c, std::vector<const char*> argv = {"bloodraven-sidecar"}) {
  built b;
  auto defs = sidecar_flag_defs();
  b.flags = parse_flags(defs, static_cast<int>(argv.size()), argv.data(), [&](const char* n) -> const char* {
    auto it = c.env.find(n);
    return it == c.env.end() ? nullptr : it->second.c_str();
  });
  if (b.flags.what != parsed_flags::action::run) return b;
  b.result = build_sidecar_config(b.flags, [&](const std::string& p) -> std::optional<std::string> {
    auto it = c.files.find(p);
    if (it == c.files.end()) return std::nullopt;
    return it->second;
  });
  return b;
}

bool has_warning(const sidecar_config& c, const std::string& needle) {
  for (auto& w : c.warnings)
    if (w.find(needle) != std::string::npos) return true;
  return false;
}

}  // namespace

BOOST_AUTO_TEST_SUITE(sidecar_config_suite)

BOOST_AUTO_TEST_CASE(defaults) {
  auto b = build({});
  BOOST_REQUIRE(b.result.config.has_value());
  auto& c = *b.result.config;
  BOOST_TEST(c.listen == ":8080");
  BOOST_TEST((c.lease_timeout == 20s));
  BOOST_TEST((c.peer_check_interval == 5s));
  BOOST_TEST((c.fence_timeout == 20s));
  BOOST_TEST((c.request_timeout == 2s));
  BOOST_TEST(c.mysql_host == "127.0.0.1");
  BOOST_TEST(c.mysql_port == 3306);
  BOOST_TEST(c.peers.empty());
  BOOST_TEST(!c.topology_aware());
  BOOST_TEST(has_warning(c, "KEYS_DIR"));
  BOOST_TEST(has_warning(c, "SIDECAR_STATE_DIR"));
  BOOST_TEST(!has_warning(c, "clamped"));
}

BOOST_AUTO_TEST_CASE(clamps_table) {
  struct row {
    std::chrono::nanoseconds interval, lease, want_interval, want_lease;
    bool warn_interval, warn_lease;
  };
  const row rows[] = {
      {5s, 20s, 5s, 20s, false, false},
      {5s, 15s, 5s, 15s, false, false},   // exactly 3 x interval
      {5s, 14s, 5s, 15s, false, true},
      {500ms, 20s, 1s, 20s, true, false},
      {500ms, 2s, 1s, 3s, true, true},    // floor of 3 s
      {1s, 3s, 1s, 3s, false, false},
      {1s, 2999ms, 1s, 3s, false, true},
      {10s, 20s, 10s, 30s, false, true},
  };
  for (auto& r : rows) {
    auto i = r.interval, l = r.lease;
    auto w = clamp_intervals(i, l);
    BOOST_TEST_CONTEXT(format_duration(r.interval) << " / " << format_duration(r.lease)) {
      BOOST_TEST((i == r.want_interval));
      BOOST_TEST((l == r.want_lease));
      bool wi = false, wl = false;
      for (auto& s : w) {
        if (s.rfind("PEER_CHECK_INTERVAL", 0) == 0) wi = true;
        if (s.rfind("LEASE_TIMEOUT", 0) == 0) wl = true;
      }
      BOOST_TEST(wi == r.warn_interval);
      BOOST_TEST(wl == r.warn_lease);
    }
  }
}

BOOST_AUTO_TEST_CASE(clamps_apply_from_the_environment) {
  auto b = build({{{"PEER_CHECK_INTERVAL", "2s"}, {"LEASE_TIMEOUT", "4s"}}, {}});
  BOOST_REQUIRE(b.result.config.has_value());
  BOOST_TEST((b.result.config->lease_timeout == 6s));
  BOOST_TEST(has_warning(*b.result.config, "LEASE_TIMEOUT"));
}

BOOST_AUTO_TEST_CASE(peers_and_legacy_peer_address) {
  auto b = build({{{"PEER_ADDRESSES", "a:1, b:2"}, {"PEER_ADDRESS", "c:3"}}, {}});
  BOOST_REQUIRE(b.result.config.has_value());
  BOOST_TEST((b.result.config->peers == std::vector<std::string>{"a:1", "b:2"}));
  b = build({{{"PEER_ADDRESS", "c:3"}}, {}});
  BOOST_REQUIRE(b.result.config.has_value());
  BOOST_TEST((b.result.config->peers == std::vector<std::string>{"c:3"}));
  b = build({{{"PEER_ADDRESS", "c"}}, {}});
  BOOST_TEST((b.flags.what == parsed_flags::action::fail));
  BOOST_TEST(b.flags.error.find("PEER_ADDRESS") != std::string::npos);
}

BOOST_AUTO_TEST_CASE(credentials_from_dir_win_over_user_and_password) {
  auto b = build({{{"MYSQL_CREDS_DIR", "/creds"}, {"MYSQL_USER", "u2"}, {"MYSQL_PASSWORD", "p2"}},
                  {{"/creds/username", "sidecar\n"}, {"/creds/password", "s3cret\n"}}});
  BOOST_REQUIRE(b.result.config.has_value());
  BOOST_TEST(b.result.config->mysql_user == "sidecar");
  BOOST_TEST(b.result.config->mysql_password == "s3cret");
  b = build({{{"MYSQL_USER", "u2"}, {"MYSQL_PASSWORD", "p2"}, {"MYSQL_PORT", "3310"}}, {}});
  BOOST_REQUIRE(b.result.config.has_value());
  BOOST_TEST(b.result.config->mysql_user == "u2");
  BOOST_TEST(b.result.config->mysql_port == 3310);
}

BOOST_AUTO_TEST_CASE(group_replication_doorbell_settings) {
  auto d = build({});
  BOOST_REQUIRE(d.result.config.has_value());
  BOOST_TEST((d.result.config->gr_watch_interval == 250ms));
  BOOST_TEST(!d.result.config->gr_pod_doorbell);
  auto b = build({{{"GR_WATCH_INTERVAL", "100ms"}, {"GR_POD_DOORBELL", "true"},
                   {"MY_POD_NAME", "mysql-g-a-xyz"}, {"POD_NAMESPACE", "ns"}},
                  {}});
  BOOST_REQUIRE(b.result.config.has_value());
  BOOST_TEST((b.result.config->gr_watch_interval == 100ms));
  BOOST_TEST(b.result.config->gr_pod_doorbell);
  BOOST_TEST(b.result.config->pod_name == "mysql-g-a-xyz");
}

BOOST_AUTO_TEST_CASE(errors_name_the_variable) {
  struct row {
    env_case c;
    std::string must_name;
  };
  const std::vector<row> rows = {
      {{{{"MYSQL_CREDS_DIR", "/nope"}}, {}}, "MYSQL_CREDS_DIR"},
      {{{{"MYSQL_CREDS_DIR", "/c"}}, {{"/c/username", "u"}}}, "MYSQL_CREDS_DIR"},
      {{{{"MYSQL_CREDS_DIR", "/c"}}, {{"/c/username", "\n"}, {"/c/password", "p"}}}, "MYSQL_CREDS_DIR"},
      // Topology-aware without keys: no view could ever be verified.
      {{{{"MY_SITE", "a"}, {"POD_NAMESPACE", "ns"}, {"FAILOVER_GROUP", "g"},
         {"BLOODRAVEN_ADDRESS", "op:8082"}}, {}}, "KEYS_DIR"},
      {{{{"BLOODRAVEN_ADDRESS", "a:1,b:2"}}, {}}, "BLOODRAVEN_ADDRESS"},
      {{{{"MYSQL_PORT", "0"}}, {}}, "MYSQL_PORT"},
      {{{{"MYSQL_PORT", "x"}}, {}}, "MYSQL_PORT"},
      {{{{"FENCE_TIMEOUT", "10"}}, {}}, "FENCE_TIMEOUT"},
      {{{{"REQUEST_TIMEOUT", "-1s"}}, {}}, "REQUEST_TIMEOUT"},
      {{{{"MYSQL_HOST", ""}}, {}}, "MYSQL_HOST"},
      // The Group Replication doorbell: a sub-second read at most every 50 ms; the Pod doorbell
      // needs the Pod it annotates.
      {{{{"GR_WATCH_INTERVAL", "10ms"}}, {}}, "GR_WATCH_INTERVAL"},
      {{{{"GR_WATCH_INTERVAL", "2m"}}, {}}, "GR_WATCH_INTERVAL"},
      {{{{"GR_POD_DOORBELL", "true"}, {"POD_NAMESPACE", "ns"}}, {}}, "MY_POD_NAME"},
      {{{{"GR_POD_DOORBELL", "true"}, {"MY_POD_NAME", "p"}}, {}}, "POD_NAMESPACE"},
  };
  for (auto& r : rows) {
    auto b = build(r.c);
    BOOST_TEST_CONTEXT(r.must_name) {
      std::string err = b.flags.what == parsed_flags::action::fail ? b.flags.error : b.result.error;
      BOOST_TEST(!b.result.config.has_value());
      BOOST_TEST(err.find(r.must_name) != std::string::npos, err);
    }
  }
}

BOOST_AUTO_TEST_CASE(keys_dir_and_identity) {
  auto b = build({{{"KEYS_DIR", "/k"}, {"MY_SITE", "a"}, {"POD_NAMESPACE", "ns"},
                   {"FAILOVER_GROUP", "g"}, {"BLOODRAVEN_ADDRESS", "op:8082"}},
                  {}});
  BOOST_REQUIRE(b.result.config.has_value());
  BOOST_TEST(b.result.config->keys_dir == "/k");
  BOOST_TEST(b.result.config->topology_aware());
  BOOST_TEST(!has_warning(*b.result.config, "KEYS_DIR"));
}

BOOST_AUTO_TEST_CASE(flags_mirror_variables) {
  auto b = build({{{"LEASE_TIMEOUT", "30s"}}, {}},
                 {"bloodraven-sidecar", "--lease-timeout", "40s", "--mysql-port", "4000",
                  "--state-dir", "/s"});
  BOOST_REQUIRE(b.result.config.has_value());
  BOOST_TEST((b.result.config->lease_timeout == 40s));
  BOOST_TEST(b.result.config->mysql_port == 4000);
  BOOST_TEST(b.result.config->state_dir == "/s");
}

BOOST_AUTO_TEST_CASE(pitr_archiver_settings_and_their_errors) {
  auto off = build({});
  BOOST_REQUIRE(off.result.config.has_value());
  BOOST_TEST(!off.result.config->pitr.enabled);  // off by default
  BOOST_TEST(off.result.config->pitr.binlog_dir == "/var/lib/mysql");
  BOOST_TEST(off.result.config->pitr.binlog_index == "mysql-bin.index");
  BOOST_TEST((off.result.config->pitr.poll_interval == 60s));

  std::map<std::string, std::string> on = {{"BLOODRAVEN_PITR_ENABLED", "true"},
                                           {"MY_SITE", "a"},
                                           {"BLOODRAVEN_PITR_STORAGE_TYPE", "PVC"},
                                           {"BLOODRAVEN_PITR_PVC_MOUNT_PATH", "/backups"},
                                           {"BLOODRAVEN_PITR_POLL_INTERVAL", "200ms"}};
  auto ok = build({on, {}});
  BOOST_REQUIRE_MESSAGE(ok.result.config.has_value(), ok.result.error);
  BOOST_TEST(ok.result.config->pitr.enabled);
  BOOST_TEST(ok.result.config->pitr.pvc_mount_path == "/backups");
  BOOST_TEST((ok.result.config->pitr.poll_interval == 1s));  // clamped, with a warning
  BOOST_TEST(has_warning(*ok.result.config, "BLOODRAVEN_PITR_POLL_INTERVAL"));

  auto with = [&](const std::string& k, const std::string& v) {
    auto e = on;
    if (v.empty())
      e.erase(k);
    else
      e[k] = v;
    auto b = build({e, {}});
    BOOST_TEST(!b.result.config.has_value());
    return b.result.error;
  };
  BOOST_TEST(with("MY_SITE", "").find("needs MY_SITE") != std::string::npos);
  // S3: bucket and credentials directory are required, each error names its variable.
  BOOST_TEST(with("BLOODRAVEN_PITR_STORAGE_TYPE", "S3").find("BLOODRAVEN_PITR_S3_BUCKET") == 0u);
  BOOST_TEST(with("BLOODRAVEN_PITR_STORAGE_TYPE", "GCS").find("BLOODRAVEN_PITR_STORAGE_TYPE") == 0u);
  auto s3 = on;
  s3["BLOODRAVEN_PITR_STORAGE_TYPE"] = "S3";
  s3["BLOODRAVEN_PITR_S3_BUCKET"] = "archive";
  auto no_creds = build({s3, {}});
  BOOST_TEST(no_creds.result.error.find("BLOODRAVEN_PITR_S3_CREDENTIALS_DIR") == 0u, no_creds.result.error);
  s3["BLOODRAVEN_PITR_S3_CREDENTIALS_DIR"] = "/creds";
  auto unreadable = build({s3, {{"/creds/AWS_ACCESS_KEY_ID", "AK\n"}}});
  BOOST_TEST(unreadable.result.error.find("BLOODRAVEN_PITR_S3_CREDENTIALS_DIR") == 0u, unreadable.result.error);
  BOOST_TEST(unreadable.result.error.find("AWS_SECRET_ACCESS_KEY") != std::string::npos, unreadable.result.error);
  s3["BLOODRAVEN_PITR_S3_ENDPOINT"] = "http://127.0.0.1:9000";
  s3["BLOODRAVEN_PITR_RETENTION_INTERVAL"] = "10m";
  s3["BLOODRAVEN_PITR_PROFILE_NAME"] = "nightly";
  auto s3ok = build({s3, {{"/creds/AWS_ACCESS_KEY_ID", "AK\n"}, {"/creds/AWS_SECRET_ACCESS_KEY", "SK\n"}}});
  BOOST_REQUIRE_MESSAGE(s3ok.result.config.has_value(), s3ok.result.error);
  const auto& p = s3ok.result.config->pitr;
  BOOST_TEST(p.storage_type == "S3");
  BOOST_TEST(p.storage_env.at("BLOODRAVEN_PITR_S3_BUCKET") == "archive");
  BOOST_TEST(p.storage_env.at("BLOODRAVEN_PITR_S3_ENDPOINT") == "http://127.0.0.1:9000");
  BOOST_TEST(p.storage_env.at("BLOODRAVEN_PITR_S3_REGION") == "us-east-1");
  BOOST_TEST(p.profile_name == "nightly");
  BOOST_TEST((p.retention_interval == 10min));
  BOOST_TEST(has_warning(*s3ok.result.config, "BLOODRAVEN_PITR_PROFILE_NAME"));  // no operator address
  BOOST_TEST(with("BLOODRAVEN_PITR_STORAGE_TYPE", "").find("BLOODRAVEN_PITR_STORAGE_TYPE") == 0u);
  BOOST_TEST(with("BLOODRAVEN_PITR_PVC_MOUNT_PATH", "").find("BLOODRAVEN_PITR_PVC_MOUNT_PATH") == 0u);
  BOOST_TEST(with("BLOODRAVEN_PITR_PVC_MOUNT_PATH", "relative/dir").find("absolute") != std::string::npos);
  // A malformed switch is refused by the flag check (exit 2 naming the variable).
  auto e = on;
  e["BLOODRAVEN_PITR_ENABLED"] = "yes please";
  auto bad = build({e, {}});
  BOOST_TEST((bad.flags.what == parsed_flags::action::fail));
  BOOST_TEST(bad.flags.error.find("BLOODRAVEN_PITR_ENABLED") != std::string::npos);
}

// MYSQL_TLS_* (issue 26): the CA for verified sessions, the watched certificate files (commas,
// empty items dropped) and their interval; off by default; an interval out of range refused.
BOOST_AUTO_TEST_CASE(mysql_tls_settings) {
  auto off = build({});
  BOOST_REQUIRE(off.result.config.has_value());
  BOOST_TEST(off.result.config->mysql_tls_ca.empty());
  BOOST_TEST(off.result.config->mysql_tls_watch.empty());
  BOOST_TEST((off.result.config->mysql_tls_watch_interval == 10s));
  auto on = build({{{"MYSQL_TLS_CA", "/etc/mysql/tls/ca.crt"},
                    {"MYSQL_TLS_WATCH", "/etc/mysql/tls/ca.crt,,/etc/mysql/tls/tls.crt,/etc/mysql/tls/tls.key"},
                    {"MYSQL_TLS_WATCH_INTERVAL", "3s"}},
                   {}});
  BOOST_REQUIRE(on.result.config.has_value());
  const auto& c = *on.result.config;
  BOOST_TEST(c.mysql_tls_ca == "/etc/mysql/tls/ca.crt");
  BOOST_TEST(c.mysql_tls_watch == (std::vector<std::string>{"/etc/mysql/tls/ca.crt",
                                                            "/etc/mysql/tls/tls.crt",
                                                            "/etc/mysql/tls/tls.key"}),
             boost::test_tools::per_element());
  BOOST_TEST((c.mysql_tls_watch_interval == 3s));
  auto bad = build({{{"MYSQL_TLS_WATCH_INTERVAL", "100ms"}}, {}});
  BOOST_TEST((bad.flags.what == parsed_flags::action::fail));
  BOOST_TEST(bad.flags.error.find("MYSQL_TLS_WATCH_INTERVAL") != std::string::npos);
}

BOOST_AUTO_TEST_SUITE_END()
