// The operator and sidecar APIs over mutual TLS with real processes (issue 26): the real operator
// (--standalone) and two real sidecars, all started with --tls-cert-file/--tls-key-file/
// --tls-ca-file and the certificates `bloodraven tls-certs` writes, naming them
// (bloodraven://operator, bloodraven://site/ns/g/<site>, IP 127.0.0.1). No MySQL runs (the sites'
// MySQL ports are closed): what is checked is the API traffic, which goes on without it. The sidecars report to the operator, read its signed view
// with a nonce and probe each other; the operator reads the views they hold at start; every call
// passes the TLS handshake with a client certificate and the route's identity check. Calls from
// this test without a certificate, with another CA's, or with a certificate naming another site
// or the wrong role are refused.
#include <boost/test/unit_test.hpp>

#include <nlohmann/json.hpp>

#include <algorithm>
#include <csignal>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>

#include "actors/common/peer_identity.hpp"
#include "config/failover_group.hpp"
#include "config/render/haproxy_cfg.hpp"
#include "io/crypto/x509_issue.hpp"
#include "tests/support/child_process.hpp"
#include "tests/support/eventually.hpp"
#include "tests/support/mtls_client.hpp"
#include "tests/support/temp_dir.hpp"

using namespace std::chrono_literals;
using br::test::binary_path;
using br::test::child_process;
using br::test::free_port;
using json = nlohmann::json;
using br::test::mtls_call;
using br::test::write_text;

namespace {

constexpr auto safety = 60s;  // safety bound only: the calls run every second
const std::string nonce = "0123456789abcdef0123456789abcdef";

using identity = br::test::pem_files;

/// A CA and one certificate per process, as files.
struct pki {
  std::filesystem::path dir;
  br::crypto::pem_pair ca;
  std::string ca_file;
  explicit pki(std::filesystem::path d) : dir(std::move(d)) {
    std::filesystem::create_directories(dir);
    ca = *br::crypto::make_ca("api tls test CA", std::chrono::hours{24});
    ca_file = (dir / "ca.crt").string();
    write_text(ca_file, ca.cert_pem);
  }
  identity issue(const std::string& stem, const std::vector<std::string>& names) const {
    auto p = br::crypto::issue_peer_cert(ca, names, std::chrono::hours{24});
    BOOST_REQUIRE(p);
    identity id{(dir / (stem + ".crt")).string(), (dir / (stem + ".key")).string()};
    write_text(id.cert, p->cert_pem);
    write_text(id.key, p->key_pem);
    return id;
  }
};

/// The group's certificates as `bloodraven tls-certs` writes them (what the playground uses).
struct cli_pki {
  std::filesystem::path dir;
  std::string ca_file;
  explicit cli_pki(std::filesystem::path d) : dir(std::move(d)), ca_file((dir / "ca.crt").string()) {
    child_process cli{binary_path("bloodraven"),
                      {"tls-certs", dir.string(), "--namespace", "ns", "--group", "g", "--host",
                       "127.0.0.1", "site1", "site2"}};
    BOOST_REQUIRE_EQUAL(cli.wait_exit(30s).value_or(-1), 0);
  }
  identity of(const std::string& stem) const {
    return {(dir / (stem + ".crt")).string(), (dir / (stem + ".key")).string()};
  }
};

std::vector<std::string> tls_flags(const cli_pki& p, const identity& id) {
  return {"--tls-cert-file", id.cert, "--tls-key-file", id.key, "--tls-ca-file", p.ca_file};
}


/// Whether `needle` appears anywhere in the child's output (earlier lines included) within
/// `deadline`.
bool saw(child_process& c, const std::string& needle, std::chrono::milliseconds deadline) {
  return br::test::eventually(
      [&] { return c.wait_for_line(needle, 100ms) || c.output().find(needle) != std::string::npos; },
      deadline, 10ms);
}

/// A report body that passes every check before the identity one (it is not signed).
std::string report_of(const std::string& site) { return br::test::unsigned_report("ns", "g", site); }

struct group_fixture {
  br::test::temp_dir tmp;
  cli_pki p{tmp.path / "pki"};
  identity op_id = p.of("operator");
  identity s1_id = p.of("site-site1");
  identity s2_id = p.of("site-site2");
  uint16_t op_port = free_port(), op_plain_port = free_port();
  uint16_t sc_port[2] = {free_port(), free_port()};
  uint16_t mysql_port[2] = {free_port(), free_port()};  // nothing listens there
  std::unique_ptr<child_process> op, sc[2];

  std::string op_url() const { return "https://127.0.0.1:" + std::to_string(op_port); }
  std::string op_plain_url() const { return "http://127.0.0.1:" + std::to_string(op_plain_port); }
  std::string sc_url(int i) const { return "https://127.0.0.1:" + std::to_string(sc_port[i]); }

  group_fixture() {
    const auto dir = tmp.path;
    child_process keygen{binary_path("bloodraven"),
                         {"keygen", (dir / "keys").string(), "site1", "site2"}};
    BOOST_REQUIRE_EQUAL(keygen.wait_exit(30s).value_or(-1), 0);
    std::ofstream g{dir / "group.yaml"};
    g << "apiVersion: shipstream.io/v1alpha1\nkind: MysqlFailoverGroup\n"
      << "metadata: {name: g, namespace: ns}\nspec:\n  sites:\n";
    for (int i = 0; i < 2; ++i)
      g << "    - name: site" << i + 1 << "\n      role: primary-candidate\n"
        << "      address: {host: 127.0.0.1, port: " << mysql_port[i] << "}\n"
        << "      sidecarAddress: \"127.0.0.1:" << sc_port[i] << "\"\n";
    g << "  replication: {user: repl, password: replpw}\n"
      << "  sidecar: {bloodravenAddress: \"127.0.0.1:" << op_port
      << "\", leaseTimeout: 6s, peerCheckInterval: 1s}\n  pollInterval: 1s\n";
    g.close();
    write_text(dir / "operator-password", "pw");
    std::filesystem::create_directories(dir / "creds");
    write_text(dir / "creds" / "username", "u");
    write_text(dir / "creds" / "password", "p");

    std::vector<std::string> oargs = {"--standalone", (dir / "group.yaml").string(),
                                      "--listen", "127.0.0.1:" + std::to_string(op_port),
                                      "--metrics-listen", "127.0.0.1:" + std::to_string(op_plain_port),
                                      "--state-dir", (dir / "operator").string(),
                                      "--mysql-user", "u",
                                      "--mysql-password-file", (dir / "operator-password").string(),
                                      "--keys-dir", (dir / "keys").string(),
                                      "--log-level", "debug"};
    for (auto& f : tls_flags(p, op_id)) oargs.push_back(f);
    op = std::make_unique<child_process>(binary_path("bloodraven"), oargs);
    BOOST_REQUIRE(op->wait_for_line("\"msg\":\"ready\"", safety));
    const identity* ids[2] = {&s1_id, &s2_id};
    for (int i = 0; i < 2; ++i) {
      const std::string site = "site" + std::to_string(i + 1);
      std::vector<std::string> args = {
          "--listen", "127.0.0.1:" + std::to_string(sc_port[i]), "--site", site,
          "--namespace", "ns", "--group", "g",
          "--operator-address", "127.0.0.1:" + std::to_string(op_port),
          "--peers", "127.0.0.1:" + std::to_string(sc_port[1 - i]),
          "--lease-timeout", "6s", "--peer-check-interval", "1s",
          "--mysql-host", "127.0.0.1", "--mysql-port", std::to_string(mysql_port[i]),
          "--mysql-creds-dir", (dir / "creds").string(),
          "--state-dir", (dir / site).string(), "--keys-dir", (dir / "keys").string(),
          "--log-level", "debug"};
      std::filesystem::create_directories(dir / site);
      for (auto& f : tls_flags(p, *ids[i])) args.push_back(f);
      sc[i] = std::make_unique<child_process>(binary_path("bloodraven-sidecar"), args);
      BOOST_REQUIRE(sc[i]->wait_for_line("\"msg\":\"ready\"", safety));
    }
  }
};

}  // namespace

BOOST_AUTO_TEST_SUITE(api_tls_process)

BOOST_FIXTURE_TEST_CASE(operator_and_sidecars_over_mutual_tls, group_fixture) {
  // sidecar -> operator: POST /sidecar/report with each site's certificate. The status (read on
  // the operator's plain metrics listener) shows each site's sidecar report once one was accepted.
  auto reported = [&] {
    auto r = mtls_call("GET", op_plain_url() + "/status", "", nullptr);
    if (!r.ok()) return false;
    auto j = json::parse(r.body, nullptr, false);
    if (!j.contains("ns/g")) return false;
    int n = 0;
    for (const auto& s : j["ns/g"]["sites"]) n += s.contains("sidecar") ? 1 : 0;
    return n == 2;
  };
  BOOST_TEST(br::test::eventually(reported, safety), "both sidecars' reports accepted over TLS");
  // sidecar -> operator: GET /active-site with a nonce: the signed answer was adopted, by the
  // boot guard (source boot) or the fencing monitor (source operator).
  for (int i = 0; i < 2; ++i) {
    const bool adopted = saw(*sc[i], "\"msg\":\"view adopted\",\"source\":\"boot\"", 1s) ||
                         saw(*sc[i], "\"msg\":\"view adopted\",\"source\":\"operator\"", safety);
    BOOST_TEST(adopted,
               "site" << i + 1 << " adopted the operator's view");
  }
  // operator -> sidecars: at start it reads the view each sidecar holds (GET /peer/active-site).
  // Started before the sidecars, it may have missed them; each answer is logged by the sidecar.
  // sidecar -> sidecar: the peer probes are GET /peer/active-site too; each sidecar serves them.
  for (int i = 0; i < 2; ++i)
    BOOST_TEST(saw(*sc[i],
                   "\"handler\":\"peer_active_site\",\"level\":\"debug\",\"method\":\"GET\","
                   "\"msg\":\"http request\",\"server\":\"main\",\"status\":200",
                   safety),
               "site" << i + 1 << " answered a peer over TLS");
  // Nothing was refused on the way: no 403 from a route and every report accepted.
  BOOST_TEST(saw(*op,
                 "\"handler\":\"sidecar_report\",\"level\":\"debug\",\"method\":\"POST\","
                 "\"msg\":\"http request\",\"server\":\"main\",\"status\":200",
                 safety));
  for (auto* p : {op.get(), sc[0].get(), sc[1].get()})
    BOOST_TEST(p->output().find("\"status\":403") == std::string::npos);
}

BOOST_FIXTURE_TEST_CASE(calls_without_the_right_certificate_are_refused, group_fixture) {
  const std::string peer_path = "/peer/active-site?nonce=" + nonce;
  // A sidecar call without a client certificate: the handshake is refused (no HTTP status).
  auto none = mtls_call("GET", sc_url(0) + peer_path, p.ca_file, nullptr);
  BOOST_TEST(none.status == 0, none.message);
  BOOST_TEST(to_string(none.error) == "other");
  // Plain HTTP to the TLS port: no answer either.
  auto plain = mtls_call("GET", "http://127.0.0.1:" + std::to_string(sc_port[0]) + peer_path, "", nullptr);
  BOOST_TEST(plain.status == 0, plain.message);
  // A certificate from another CA, naming the operator: refused at the handshake.
  pki other{tmp.path / "other-pki"};
  auto forged = other.issue("operator", {"127.0.0.1", std::string(br::auth::operator_identity_uri)});
  auto foreign = mtls_call("GET", sc_url(0) + peer_path, p.ca_file, &forged);
  BOOST_TEST(foreign.status == 0, foreign.message);
  // The same call with site2's certificate is served: a site of the group may probe.
  auto peer = mtls_call("GET", sc_url(0) + peer_path, p.ca_file, &s2_id);
  BOOST_TEST((peer.status == 200 || peer.status == 204), peer.status << " " << peer.body);
  // PUT /view is the operator's: site2's certificate is refused before the body is read.
  auto push = mtls_call("PUT", sc_url(0) + "/view", p.ca_file, &s2_id, "{}");
  BOOST_TEST(push.status == 403, push.body);
  BOOST_TEST(push.body.find("not bloodraven://operator") != std::string::npos, push.body);
  auto op_push = mtls_call("PUT", sc_url(0) + "/view", p.ca_file, &op_id, "{}");
  BOOST_TEST(op_push.status == 400, op_push.body);  // past the identity check: the body is wrong
  // A report claiming site1 with site2's certificate: 403 naming both.
  auto claim = mtls_call("POST", op_url() + "/sidecar/report", p.ca_file, &s2_id, report_of("site1"));
  BOOST_TEST(claim.status == 403, claim.body);
  BOOST_TEST(claim.body.find("site/ns/g/site2, not bloodraven://site/ns/g/site1") != std::string::npos,
             claim.body);
  // ... and on the operator's plain listener (no certificate at all): 403 as well.
  auto plain_claim = mtls_call("POST", op_plain_url() + "/sidecar/report", "", nullptr, report_of("site1"));
  BOOST_TEST(plain_claim.status == 403, plain_claim.body);
  // With site1's own certificate it passes the identity check and fails on the signature (401).
  auto own = mtls_call("POST", op_url() + "/sidecar/report", p.ca_file, &s1_id, report_of("site1"));
  BOOST_TEST(own.status == 401, own.body);
  // The admin requests are the operator's: a site's certificate is refused.
  auto admin = mtls_call("POST", op_url() + "/admin/switchover", p.ca_file, &s1_id, "{}");
  BOOST_TEST(admin.status == 403, admin.body);
  // `bloodraven switchover` over TLS: with the operator's certificate the request reaches the
  // coordinator (which refuses it: the group has no primary), with a site's it is refused (403).
  auto switchover = [&](const identity& id) {
    child_process cli{binary_path("bloodraven"),
                      {"switchover", "--operator", op_url(), "--keys-dir", (tmp.path / "keys").string(),
                       "--namespace", "ns", "--group", "g", "site2", "--tls-ca-file", p.ca_file,
                       "--tls-cert-file", id.cert, "--tls-key-file", id.key}};
    cli.wait_exit(safety);
    return cli.output();
  };
  const auto as_operator = switchover(op_id);
  BOOST_TEST(as_operator.find("403") == std::string::npos, as_operator);
  BOOST_TEST(as_operator.rfind("409 ", 0) == 0, as_operator);
  const auto as_site = switchover(s1_id);
  BOOST_TEST(as_site.rfind("403 ", 0) == 0, as_site);
  // The operator refuses a certificate-less handshake too.
  auto op_none = mtls_call("GET", op_url() + "/status", p.ca_file, nullptr);
  BOOST_TEST(op_none.status == 0, op_none.message);
  BOOST_TEST(mtls_call("GET", op_url() + "/status", p.ca_file, &s1_id).status == 200);
}

// The standalone router follows the sidecars over TLS: HAProxy's checks (check-ssl, the CA, and a
// client certificate in one PEM file) complete the handshake and read the sidecar's answer to GET
// /primary (503 without MySQL: check status L7STS, an HTTP answer); without the certificate the
// sidecar refuses the handshake and HAProxy never gets an HTTP answer.
BOOST_FIXTURE_TEST_CASE(haproxy_checks_the_sidecars_over_tls, group_fixture) {
  const auto pem = p.dir / "router.pem";  // bloodraven tls-certs: certificate then key
  std::stringstream yaml;
  yaml << std::ifstream{tmp.path / "group.yaml"}.rdbuf();
  auto g = br::config::load_group_yaml(yaml.str(), br::config::run_mode::standalone);
  BOOST_REQUIRE(g.ok());
  auto check_statuses = [&](bool with_crt) {
    br::render::haproxy_options o;
    o.primary_port = free_port();
    o.replicas_port = free_port();
    o.stats_port = free_port();
    o.log_target = "";
    o.check_ca_file = p.ca_file;
    if (with_crt) o.check_crt = pem.string();
    auto cfg = br::render::render_haproxy_cfg(g.group, o);
    BOOST_REQUIRE(cfg.ok());
    const auto file = tmp.path / (with_crt ? "haproxy-crt.cfg" : "haproxy-nocrt.cfg");
    write_text(file, cfg.text);
    child_process haproxy{"/usr/sbin/haproxy", {"-db", "-f", file.string()}};
    // GET /;csv of the stats listener: the check_status column of backend primary's servers.
    std::map<std::string, std::string> status;
    br::test::eventually(
        [&] {
          status.clear();
          auto r = mtls_call("GET", "http://127.0.0.1:" + std::to_string(o.stats_port) + "/;csv", "", nullptr);
          if (!r.ok()) return false;
          std::istringstream in(r.body);
          std::string header, line;
          std::getline(in, header);
          std::vector<std::string> cols;
          std::istringstream hs(header.substr(2));  // "# pxname,svname,..."
          for (std::string c; std::getline(hs, c, ',');) cols.push_back(c);
          const auto at = std::find(cols.begin(), cols.end(), "check_status") - cols.begin();
          while (std::getline(in, line)) {
            std::vector<std::string> f;
            std::istringstream ls(line);
            for (std::string c; std::getline(ls, c, ',');) f.push_back(c);
            if (f.size() > static_cast<std::size_t>(at) && f[0] == "primary" && f[1].rfind("site", 0) == 0)
              status[f[1]] = f[at].rfind("* ", 0) == 0 ? f[at].substr(2) : f[at];  // "* ": running
          }
          // Until the first check of each server has a result.
          return status.size() == 2 && !status["site1"].empty() && status["site1"] != "INI" &&
                 !status["site2"].empty() && status["site2"] != "INI";
        },
        safety);
    haproxy.signal(SIGTERM);
    return status;
  };
  auto with = check_statuses(true);
  BOOST_TEST(with["site1"] == "L7STS");  // an HTTP answer (503: no MySQL) over TLS
  BOOST_TEST(with["site2"] == "L7STS");
  auto without = check_statuses(false);
  BOOST_TEST_MESSAGE("HAProxy check status with the client certificate: " << with["site1"]
                     << ", without: " << without["site1"]);
  BOOST_TEST(without["site1"] != "L7STS", without["site1"]);  // refused at the handshake
  BOOST_TEST(!without["site1"].empty());
}

BOOST_AUTO_TEST_SUITE_END()
