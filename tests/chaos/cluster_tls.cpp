// Chaos harness, TLS everywhere (issue 26): certificates, the servers' TLS options, the harness's
// own verified clients and the end-of-run check that everything ran over verified TLS.
#include <cstdlib>
#include <filesystem>
#include <stdexcept>
#include <thread>

#include "tests/chaos/cluster.hpp"
#include "tests/support/child_process.hpp"

using namespace std::chrono_literals;

namespace br::chaos {

namespace {

/// The CA file as each chrooted mysqld sees it (SOURCE_SSL_CA; tools/mysql-sandbox-tls.bash).
constexpr const char* mysqld_ca_path = "/etc/mysql/tls/ca.crt";

std::string trim(std::string s) {
  while (!s.empty() && (s.back() == '\n' || s.back() == ' ')) s.pop_back();
  return s;
}

}  // namespace

bool cluster_params::tls_from_env() {
  const char* v = std::getenv("BR_CHAOS_TLS");
  return v && std::string(v) == "1";
}

void cluster::setup_tls() {
  if (p_.gr) throw std::runtime_error("TLS chaos runs are async only (spec.tls is refused with GR)");
  mysql_ca_ = trim(sandbox_.must({"tls-ca"}));
  for (int k = 0; k < sites; ++k) {
    // After `netns`: the certificate names the namespace address the operator dials.
    sandbox_.must({"tls-cert", std::to_string(instance(k))});
    sandbox_.must({"tls-config", std::to_string(instance(k))});
  }
  api_tls_dir_ = dir_ + "/api-tls";
  std::vector<std::string> args{"tls-certs", api_tls_dir_, "--namespace", "chaos", "--group", "g",
                                "--host", host_addr_};
  for (int k = 0; k < sites; ++k) args.insert(args.end(), {"--host", addr_[k]});
  for (int k = 0; k < sites; ++k) args.push_back(site_name(k));
  br::test::child_process cli(br::test::binary_path("bloodraven"), args, {});
  if (cli.wait_exit(60s).value_or(-1) != 0)
    throw std::runtime_error("bloodraven tls-certs failed: " + cli.output());
  note("TLS: MySQL CA " + mysql_ca_ + ", API certificates " + api_tls_dir_);
}

void cluster::verify_replication_tls(int k) {
  // mysql-sandbox replicate connects with SOURCE_SSL=1 but no verification: made verifying here,
  // as the operator configures every channel it points itself.
  if (!sql(k).exec("STOP REPLICA") ||
      !sql(k).exec(std::string("CHANGE REPLICATION SOURCE TO SOURCE_SSL=1, SOURCE_SSL_CA='") +
                   mysqld_ca_path + "', SOURCE_SSL_VERIFY_SERVER_CERT=1, GET_SOURCE_PUBLIC_KEY=0") ||
      !sql(k).exec("START REPLICA"))
    throw std::runtime_error(site_name(k) + ": verifying replication: " + sql(k).error());
  auto until = std::chrono::steady_clock::now() + 20s;
  for (;;) {
    auto st = sql(k).scalar("SELECT SERVICE_STATE FROM performance_schema.replication_connection_status "
                            "WHERE CHANNEL_NAME=''");
    if (st && *st == "ON") return;
    if (std::chrono::steady_clock::now() > until) {
      auto err = sql(k).scalar("SELECT CONCAT(LAST_ERROR_NUMBER, ' ', LAST_ERROR_MESSAGE) FROM "
                               "performance_schema.replication_connection_status WHERE CHANNEL_NAME=''");
      throw std::runtime_error(site_name(k) + ": the verified replication channel is not ON: " +
                               err.value_or(sql(k).error()));
    }
    std::this_thread::sleep_for(100ms);
  }
}

std::vector<std::string> cluster::api_tls_args(const std::string& cert) const {
  if (api_tls_dir_.empty()) return {};
  return {"--tls-cert-file", api_tls_dir_ + "/" + cert + ".crt", "--tls-key-file",
          api_tls_dir_ + "/" + cert + ".key", "--tls-ca-file", api_tls_dir_ + "/ca.crt"};
}

br::http::client_result cluster::http_get(const std::string& url,
                                          std::chrono::milliseconds timeout) const {
  br::http::client_request req;
  req.url = url;
  req.timeout = timeout;
  req.connect_timeout = std::min(timeout, std::chrono::milliseconds{700});
  if (!api_tls_dir_.empty()) {
    req.ca_file = api_tls_dir_ + "/ca.crt";
    req.cert_file = api_tls_dir_ + "/operator.crt";
    req.key_file = api_tls_dir_ + "/operator.key";
  }
  return br::http::perform(req);
}

nlohmann::json cluster::get_json(const std::string& url) const {
  auto r = http_get(url, 1500ms);
  if (r.status != 200) return nullptr;
  return nlohmann::json::parse(r.body, nullptr, false);
}

std::vector<std::string> cluster::tls_findings(std::string& summary) {
  std::vector<std::string> out;
  int tls_sessions = 0, channels = 0, verifying = 0;
  for (int k = 0; k < sites; ++k) {
    if (!sandbox_.running(instance(k))) continue;
    const auto who = site_name(k) + ": ";
    auto req = sql(k).scalar("SELECT @@global.require_secure_transport");
    if (!req || *req != "1") out.push_back(who + "require_secure_transport is " + req.value_or("unreadable"));
    // CONNECTION_TYPE: 'TCP/IP' is a TCP session without TLS, 'SSL/TLS' one with it.
    auto rows = sql(k).query("SELECT CONNECTION_TYPE, COUNT(*) FROM performance_schema.threads WHERE "
                             "CONNECTION_TYPE IN ('TCP/IP', 'SSL/TLS') GROUP BY CONNECTION_TYPE");
    if (!rows) {
      out.push_back(who + "threads unreadable: " + sql(k).error());
    } else {
      for (const auto& r : *rows) {
        if (!r[0] || !r[1]) continue;
        if (*r[0] == "TCP/IP") out.push_back(who + *r[1] + " TCP sessions without TLS");
        else tls_sessions += std::stoi(*r[1]);
      }
    }
    auto ch = sql(k).query("SELECT SSL_ALLOWED, SSL_VERIFY_SERVER_CERTIFICATE, GET_PUBLIC_KEY, SSL_CA_FILE "
                           "FROM performance_schema.replication_connection_configuration "
                           "WHERE CHANNEL_NAME=''");
    if (!ch) out.push_back(who + "replication channels unreadable: " + sql(k).error());
    if (ch)
      for (const auto& r : *ch) {
        ++channels;
        auto v = [&](size_t i) { return r[i].value_or(""); };
        if (v(0) == "YES" && v(1) == "YES" && v(2) == "NO" && !v(3).empty()) ++verifying;
        else
          out.push_back(who + "replication channel SSL_ALLOWED=" + v(0) + " SSL_VERIFY_SERVER_CERTIFICATE=" +
                        v(1) + " GET_PUBLIC_KEY=" + v(2) + " SSL_CA_FILE='" + v(3) + "'");
      }
  }
  summary = std::to_string(tls_sessions) + " TCP sessions over TLS, " + std::to_string(verifying) +
            " of " + std::to_string(channels) + " replication channels verifying their source";
  return out;
}

}  // namespace br::chaos
