// Integration (issue 26): MySQL over verified TLS on real MySQL 9.7, sandbox instances 310 (source)
// and 311 (replica), both started with TLS required (tools/mysql-sandbox tls-config) and server
// certificates from the sandbox CA (tls-cert). A client without TLS is refused; the operator's
// connection (io/mysql connect_options tls_mode::verify_identity) verifies the CA and the host
// name: a certificate from another CA or for another host name is refused; a replica set up by
// change_source with ssl_ca replicates with SOURCE_SSL_VERIFY_SERVER_CERT=1 and refuses a source
// whose certificate names another host; ALTER INSTANCE RELOAD TLS after a rotation serves the new
// certificate to new sessions, and the sidecar's tls_watcher issues it by itself when the files
// change. A CLONE with the CA set refuses a donor whose certificate another CA signed. The instances are stopped and their TLS options removed at the end.
#include <caf/all.hpp>

#include <filesystem>
#include <fstream>

#include "actors/sidecar/runtime/tls_watcher.hpp"
#include "io/crypto/x509_issue.hpp"
#include "io/fs/atomic_file.hpp"
#include "io/mysql/clone.hpp"
#include "io/mysql/replication.hpp"
#include "io/mysql/tls_reload.hpp"
#include "tests/integration/mysql_test_common.hpp"

using namespace br::test;
namespace m = br::mysql;
namespace fs = std::filesystem;
using namespace std::chrono_literals;

namespace {

constexpr int source = 310;
constexpr int replica = 311;

std::string tls_dir() {
  static const std::string d = sandbox().must({"tls-dir"});
  return d;
}

/// Options for instance i over TLS verified against the sandbox CA (or `ca`).
m::connect_options verified(int i, const std::string& user = "bloodraven", std::string ca = {}) {
  auto o = sandbox().options(i, user);
  o.tls = m::tls_mode::verify_identity;
  o.tls_ca_file = ca.empty() ? tls_dir() + "/ca.crt" : std::move(ca);
  return o;
}

void exec_sql(m::connection& c, const std::string& sql) {
  auto r = c.exec(sql);
  BOOST_TEST_REQUIRE(r.ok(), sql << ": " << (r.ok() ? "" : r.error().to_string()));
}

std::string status_value(m::connection& c, const std::string& name) {
  auto r = c.query("SHOW SESSION STATUS LIKE '" + name + "'");
  BOOST_TEST_REQUIRE(r.ok(), (r.ok() ? "" : r.error().to_string()));
  BOOST_TEST_REQUIRE(r->rows.size() == 1u);
  return r->rows[0][1].value_or("");
}

/// (Re)issues instance i's certificate and makes the running server serve it.
void rotate(int i, const std::vector<std::string>& flags = {}) {
  std::vector<std::string> args{"tls-cert", std::to_string(i)};
  args.insert(args.end(), flags.begin(), flags.end());
  sandbox().must(args);
  // Through the socket as root: works whatever certificate the server serves.
  sandbox().sql(i, "ALTER INSTANCE RELOAD TLS");
}

struct tls_pair {
  tls_pair() {
    for (int i : {source, replica}) {
      sandbox().must({"tls-cert", std::to_string(i)});
      sandbox().must({"tls-config", std::to_string(i)});
    }
    // Fresh servers (an earlier run or a hand-run group may have left replication, an armed dead
    // man's switch or cloned data behind); `reset` keeps the TLS options.
    for (int i : {source, replica}) sandbox().reset(i);
  }
  ~tls_pair() {
    for (int i : {source, replica}) {
      sandbox().run({"stop", std::to_string(i)});
      sandbox().run({"tls-off", std::to_string(i)});
    }
  }
};

}  // namespace

BOOST_AUTO_TEST_SUITE(mysql_tls, *boost::unit_test::fixture<tls_pair>())

BOOST_AUTO_TEST_CASE(plain_clients_are_refused_verified_ones_accepted) {
  auto plain = m::connection::open(sandbox().options(source, "bloodraven"));
  BOOST_TEST(!plain.ok(), "a client without TLS was accepted");
  auto c = m::connection::open(verified(source));
  BOOST_TEST_REQUIRE(c.ok(), (c.ok() ? "" : c.error().to_string()));
  BOOST_TEST(!c->tls_cipher().empty());
  auto r = c->query("SELECT @@require_secure_transport");
  BOOST_TEST_REQUIRE(r.ok());
  BOOST_TEST(r->rows[0][0].value_or("") == "1");
  // verify_identity without a CA file is refused before any network traffic.
  auto no_ca = sandbox().options(source, "bloodraven");
  no_ca.tls = m::tls_mode::verify_identity;
  auto n = m::connection::open(no_ca);
  BOOST_TEST_REQUIRE(!n.ok());
  BOOST_TEST(n.error().message.find("needs a CA file") != std::string::npos);
}

BOOST_AUTO_TEST_CASE(another_ca_or_another_host_name_is_refused) {
  // A CA that did not sign the server's certificate.
  fs::path other = fs::temp_directory_path() / ("br-tls-other-ca-" + marker("x"));
  fs::create_directories(other);
  std::string cmd = "openssl req -x509 -newkey rsa:2048 -nodes -days 2 -subj /CN=other -keyout '" +
                    (other / "ca.key").string() + "' -out '" + (other / "ca.crt").string() +
                    "' >/dev/null 2>&1";
  BOOST_TEST_REQUIRE(std::system(cmd.c_str()) == 0);
  auto wrong_ca = m::connection::open(verified(source, "bloodraven", (other / "ca.crt").string()));
  fs::remove_all(other);
  BOOST_TEST(!wrong_ca.ok(), "a certificate from another CA was accepted");

  // The server's certificate names another host (wrong-host.invalid, not 127.0.0.1).
  rotate(source, {"--wrong-host"});
  auto wrong_host = m::connection::open(verified(source));
  BOOST_TEST(!wrong_host.ok(), "a certificate for another host name was accepted");
  if (!wrong_host.ok()) BOOST_TEST_MESSAGE("refused as expected: " << wrong_host.error().to_string());
  // The same server without verification: the refusal above is the verification's.
  auto unverified = sandbox().options(source, "bloodraven");
  unverified.tls = m::tls_mode::required;
  auto u = m::connection::open(unverified);
  BOOST_TEST(u.ok(), (u.ok() ? "" : u.error().to_string()));
  rotate(source);
  BOOST_TEST(m::connection::open(verified(source)).ok());
}

BOOST_AUTO_TEST_CASE(reload_tls_serves_the_rotated_certificate) {
  rotate(source, {"--days", "40"});
  auto before = m::connection::open(verified(source));
  BOOST_TEST_REQUIRE(before.ok(), (before.ok() ? "" : before.error().to_string()));
  auto not_after_40 = status_value(*before, "Ssl_server_not_after");
  // New files on disk are not served before the reload...
  sandbox().must({"tls-cert", std::to_string(source), "--days", "90"});
  {
    auto c = m::connection::open(verified(source));
    BOOST_TEST_REQUIRE(c.ok());
    BOOST_TEST(status_value(*c, "Ssl_server_not_after") == not_after_40);
  }
  // ...and are after it, to new sessions, without a restart.
  auto pid = sandbox().must({"pid", std::to_string(source)});
  auto reloaded = m::reload_tls(verified(source));
  BOOST_TEST_REQUIRE(reloaded.ok(), (reloaded.ok() ? "" : reloaded.error().to_string()));
  auto after = m::connection::open(verified(source));
  BOOST_TEST_REQUIRE(after.ok(), (after.ok() ? "" : after.error().to_string()));
  auto not_after_90 = status_value(*after, "Ssl_server_not_after");
  BOOST_TEST(not_after_90 != not_after_40, not_after_90 << " vs " << not_after_40);
  BOOST_TEST(sandbox().must({"pid", std::to_string(source)}) == pid);
}

BOOST_AUTO_TEST_CASE(replica_verifies_its_source) {
  auto src = open_or_fail(verified(source, "root"));
  exec_sql(src, "SET GLOBAL super_read_only = OFF");
  exec_sql(src, "SET GLOBAL read_only = OFF");
  exec_sql(src,
           "CREATE TABLE IF NOT EXISTS appdb.tls_markers (k VARCHAR(96) PRIMARY KEY)");
  auto rep = open_or_fail(verified(replica, "bloodraven"));
  const auto& d = m::mysql8();
  auto ok = [](const auto& r) { return r.ok() ? std::string{} : r.error().to_string(); };
  auto point_at_source = [&] {
    BOOST_TEST_REQUIRE(m::stop_replica(rep, d).ok());
    BOOST_TEST_REQUIRE(m::reset_replica_all(rep, d).ok());
    m::replication_source s;
    s.host = "127.0.0.1";
    s.port = sandbox().port(source);
    s.user = "repl";
    s.password = "replpw";
    s.ssl_ca = "/etc/mysql/tls/ca.crt";  // the path the replica's mysqld sees (in the chroot)
    s.connect_retry = 1s;
    auto c = m::change_source(rep, d, s);
    BOOST_TEST_REQUIRE(c.ok(), ok(c));
    auto st = m::start_replica(rep, d);
    BOOST_TEST_REQUIRE(st.ok(), ok(st));
  };
  auto io_state = [&] {
    auto r = rep.query(
        "SELECT SERVICE_STATE, LAST_ERROR_NUMBER FROM performance_schema.replication_connection_status "
        "WHERE CHANNEL_NAME = ''");
    BOOST_TEST_REQUIRE(r.ok(), ok(r));
    BOOST_TEST_REQUIRE(r->rows.size() == 1u);
    return r->rows[0][0].value_or("") + "/" + r->rows[0][1].value_or("");
  };

  // A source whose certificate names another host: the receiver does not connect.
  rotate(source, {"--wrong-host"});
  point_at_source();
  bool refused = eventually([&] { return io_state() != "CONNECTING/0" && io_state() != "ON/0"; }, 10s);
  std::string refused_state = io_state();
  BOOST_TEST(refused, "receiver state " << refused_state);
  BOOST_TEST(!refused_state.starts_with("ON"), "the replica connected to a wrong-host certificate");
  BOOST_TEST_MESSAGE("wrong-host source: receiver " << refused_state);

  // The right certificate, reloaded: the receiver connects by itself (SOURCE_CONNECT_RETRY 1 s).
  rotate(source);
  BOOST_TEST_REQUIRE(eventually([&] { return io_state().starts_with("ON"); }, 20s), io_state());
  auto cfg = rep.query(
      "SELECT SSL_ALLOWED, SSL_CA_FILE, SSL_VERIFY_SERVER_CERTIFICATE FROM "
      "performance_schema.replication_connection_configuration WHERE CHANNEL_NAME = ''");
  BOOST_TEST_REQUIRE(cfg.ok(), ok(cfg));
  BOOST_TEST(cfg->rows[0][0].value_or("") == "YES");
  BOOST_TEST(cfg->rows[0][1].value_or("") == "/etc/mysql/tls/ca.crt");
  BOOST_TEST(cfg->rows[0][2].value_or("") == "YES");
  auto k = marker("tls");
  exec_sql(src, "INSERT INTO appdb.tls_markers VALUES ('" + k + "')");
  auto g = m::read_gtid_executed(src, d);
  BOOST_TEST_REQUIRE(g.ok());
  auto w = m::wait_for_executed(verified(replica), d, *g, 20s);
  BOOST_TEST_REQUIRE(w.ok(), ok(w));
  BOOST_TEST((*w == m::wait_outcome::reached));
  auto r = rep.query("SELECT COUNT(*) FROM appdb.tls_markers WHERE k = '" + k + "'");
  BOOST_TEST_REQUIRE(r.ok());
  BOOST_TEST(r->rows[0][0].value_or("") == "1");
  // Leave both fenced, the replica detached.
  BOOST_TEST(m::stop_replica(rep, d).ok());
  BOOST_TEST(m::reset_replica_all(rep, d).ok());
  exec_sql(src, "SET GLOBAL super_read_only = ON");
}

BOOST_AUTO_TEST_CASE(sidecar_watcher_reloads_rotated_files) {
  rotate(source, {"--days", "50"});
  auto served = [] {
    auto c = m::connection::open(verified(source));
    BOOST_TEST_REQUIRE(c.ok(), (c.ok() ? "" : c.error().to_string()));
    return status_value(*c, "Ssl_server_not_after");
  };
  const auto before = served();
  caf::actor_system_config cfg;
  cfg.set("logger.verbosity", caf::atom("quiet"));
  caf::actor_system sys{cfg};
  br::sidecar::tls_watcher_options o;
  const auto dir = tls_dir() + "/" + std::to_string(source);
  o.files = {tls_dir() + "/ca.crt", dir + "/tls.crt", dir + "/tls.key"};
  o.mysql = verified(source);
  o.interval = 1s;
  auto w = br::sidecar::spawn_tls_watcher(sys, o);
  std::this_thread::sleep_for(1500ms);  // a tick with nothing changed: no reload
  BOOST_TEST(served() == before);
  sandbox().must({"tls-cert", std::to_string(source), "--days", "70"});  // files only, no reload
  // Settles one tick, reloads the next: within a few intervals.
  bool changed = eventually([&] { return served() != before; }, 10s);
  BOOST_TEST(changed, "the rotated certificate was not served; still " << before);
  caf::anon_send_exit(w, caf::exit_reason::user_shutdown);
}

BOOST_AUTO_TEST_CASE(sidecar_watcher_reloads_a_certificate_of_a_new_ca) {
  // Review V7 H1: the CA file and the server certificate change together (a CA replaced, a
  // cert-manager SelfSigned issuer at every renewal). mysqld still serves the old CA's
  // certificate until it reloads, so a reload session trusting only the new CA is refused and
  // mysqld never reloads. The watcher's session trusts both (trust_file) and the reload happens.
  rotate(source);
  const fs::path tmp = fs::temp_directory_path() / ("br-tls-newca-" + std::to_string(::getpid()));
  fs::create_directories(tmp);
  const auto client_ca = (tmp / "ca.crt").string();
  fs::copy_file(tls_dir() + "/ca.crt", client_ca, fs::copy_options::overwrite_existing);
  caf::actor_system_config cfg;
  cfg.set("logger.verbosity", caf::atom("quiet"));
  caf::actor_system sys{cfg};
  br::sidecar::tls_watcher_options o;
  const auto dir = tls_dir() + "/" + std::to_string(source);
  o.files = {client_ca, dir + "/tls.crt", dir + "/tls.key"};
  o.mysql = verified(source, "bloodraven", client_ca);
  o.interval = 1s;
  o.trust_file = (tmp / "trust.pem").string();
  auto w = br::sidecar::spawn_tls_watcher(sys, o);
  std::this_thread::sleep_for(1500ms);
  // A new CA and a certificate of it for 127.0.0.1 (what the server is dialled at).
  auto ca = br::crypto::make_ca("bloodraven test CA 2", std::chrono::hours{24});
  BOOST_TEST_REQUIRE(ca.has_value());
  auto leaf = br::crypto::issue_peer_cert(*ca, {"127.0.0.1", "localhost"}, std::chrono::hours{24});
  BOOST_TEST_REQUIRE(leaf.has_value());
  // mysqld's own ssl-ca (the sandbox's shared CA file, as in a pod the Secret's ca.crt) must
  // hold the new CA or mysqld refuses the new certificate ("Invalid certificates"): the sandbox
  // CA and the new one there (the sandbox CA stays, so other instances are unaffected), put back
  // at the end.
  const auto shared_ca = tls_dir() + "/ca.crt";
  std::string sandbox_ca;
  {
    std::ifstream in{shared_ca, std::ios::binary};
    sandbox_ca.assign(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
  }
  BOOST_TEST_REQUIRE(!sandbox_ca.empty());
  BOOST_TEST_REQUIRE(br::fs::write_file_atomic(shared_ca, sandbox_ca + ca->cert_pem, 0644).empty());
  BOOST_TEST_REQUIRE(br::fs::write_file_atomic(dir + "/tls.key", leaf->key_pem, 0644).empty());
  BOOST_TEST_REQUIRE(br::fs::write_file_atomic(dir + "/tls.crt", leaf->cert_pem, 0644).empty());
  BOOST_TEST_REQUIRE(br::fs::write_file_atomic(client_ca, ca->cert_pem, 0644).empty());
  // Verified against the new CA alone: only once mysqld serves the new certificate.
  std::string last;
  bool served = eventually(
      [&] {
        auto c = m::connection::open(verified(source, "bloodraven", client_ca));
        last = c.ok() ? "" : c.error().to_string();
        return c.ok();
      },
      15s);
  BOOST_TEST(served, "mysqld never served the new CA's certificate (the reload session was refused): " << last);
  caf::anon_send_exit(w, caf::exit_reason::user_shutdown);
  BOOST_TEST(br::fs::write_file_atomic(shared_ca, sandbox_ca, 0644).empty());
  rotate(source);  // back to a certificate of the sandbox CA
  fs::remove_all(tmp);
}

BOOST_AUTO_TEST_CASE(clone_verifies_the_donor_ca) {
  // A CA that did not sign the donor's certificate, where the recipient's mysqld (in the
  // sandbox chroot) can read it.
  const std::string root = tls_dir().substr(0, tls_dir().size() - std::string{"/etc/mysql/tls"}.size());
  const std::string inside = "/tmp/br-tls-other-ca-" + marker("c") + ".crt";
  std::string cmd = "openssl req -x509 -newkey rsa:2048 -nodes -days 2 -subj /CN=other -keyout /dev/null "
                    "-out '" + root + inside + "' >/dev/null 2>&1";
  BOOST_TEST_REQUIRE(std::system(cmd.c_str()) == 0);
  m::clone_request req;
  req.donor = m::clone_donor{"127.0.0.1", sandbox().port(source), "repl", "replpw", inside};
  req.deadline = std::chrono::steady_clock::now() + 60s;
  auto refused = m::clone_instance(verified(replica), m::mysql8(), req);
  fs::remove(root + inside);
  BOOST_TEST_REQUIRE(!refused.ok(), "a donor certificate from another CA was accepted");
  BOOST_TEST_MESSAGE("clone refused as expected: " << refused.error().to_string());
  BOOST_TEST(refused.error().message.find("certificate verify failed") != std::string::npos,
             refused.error().to_string());
  // The group's CA: cloned (the recipient restarts through the sandbox's restart loop).
  req.donor.ssl_ca = "/etc/mysql/tls/ca.crt";
  req.deadline = std::chrono::steady_clock::now() + 120s;
  auto cloned = m::clone_instance(verified(replica), m::mysql8(), req);
  BOOST_TEST_REQUIRE(cloned.ok(), (cloned.ok() ? "" : cloned.error().to_string()));
  BOOST_TEST(cloned->state == "Completed");
}

BOOST_AUTO_TEST_SUITE_END()
