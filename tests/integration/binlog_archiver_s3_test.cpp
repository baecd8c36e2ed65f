// Binlog archive on S3 (issue 21 acceptance 3) on real MySQL 9.7 (sandbox instances 151 = site a,
// 152 = site b) and a real S3 server (radosgw, tests/support/s3_server.hpp, instance 151): a
// archives while primary; after a failover (a fenced, b promoted through the sandbox's
// `replicate`) b archives and a uploads nothing more (each scan asks the real server's
// @@read_only); the retention sweep then deletes exactly the files the cutoff allows. The cutoff
// comes from a stand-in for the operator's GET /pitr-cutoff (a loopback socket answering a fixed
// body: a SIMULATION of the operator endpoint, whose real answer is helper K's).
#include <boost/test/unit_test.hpp>

#include <arpa/inet.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <atomic>
#include <mutex>
#include <thread>

#include "actors/sidecar/archive/binlog_scan.hpp"
#include "config/rfc3339.hpp"
#include "io/binlog/manifest.hpp"
#include "io/storage/storage_config.hpp"
#include "tests/support/mysql_sandbox.hpp"
#include "tests/support/s3_server.hpp"
#include "tests/support/temp_dir.hpp"

using namespace std::chrono_literals;
namespace fs = std::filesystem;

namespace {

constexpr int site_a = 151;  // helper S's ids
constexpr int site_b = 152;

const br::test::mysql_sandbox& sandbox() {
  static const br::test::mysql_sandbox sb;
  return sb;
}
std::string sql(int i, const std::string& q) { return sandbox().sql(i, q); }

/// A one-route HTTP answerer on loopback (stand-in for the operator's /pitr-cutoff).
class cutoff_stub {
 public:
  cutoff_stub() {
    fd_ = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    sockaddr_in a{};
    a.sin_family = AF_INET;
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    BOOST_TEST_REQUIRE(::bind(fd_, reinterpret_cast<sockaddr*>(&a), sizeof a) == 0);
    socklen_t len = sizeof a;
    ::getsockname(fd_, reinterpret_cast<sockaddr*>(&a), &len);
    port_ = ntohs(a.sin_port);
    ::listen(fd_, 8);
    thread_ = std::thread([this] { serve(); });
  }
  ~cutoff_stub() {
    stop_ = true;
    thread_.join();
    ::close(fd_);
  }
  void answer(int status, std::string body) {
    std::lock_guard<std::mutex> lk(mx_);
    status_ = status;
    body_ = std::move(body);
  }
  std::string url() const {
    return "http://127.0.0.1:" + std::to_string(port_) + "/pitr-cutoff?namespace=ns&group=g&profile=p";
  }
  std::string last_target() {
    std::lock_guard<std::mutex> lk(mx_);
    return target_;
  }

 private:
  void serve() {
    while (!stop_) {
      pollfd p{fd_, POLLIN, 0};
      if (::poll(&p, 1, 100) <= 0) continue;
      int c = ::accept4(fd_, nullptr, nullptr, SOCK_CLOEXEC);
      if (c < 0) continue;
      char buf[4096];
      auto n = ::recv(c, buf, sizeof buf - 1, 0);
      std::string req(buf, n > 0 ? static_cast<size_t>(n) : 0);
      std::string reply;
      {
        std::lock_guard<std::mutex> lk(mx_);
        target_ = req.substr(0, req.find("\r\n"));
        reply = "HTTP/1.1 " + std::to_string(status_) + " X\r\nContent-Type: application/json\r\nContent-Length: " +
                std::to_string(body_.size()) + "\r\nConnection: close\r\n\r\n" + body_;
      }
      ::send(c, reply.data(), reply.size(), MSG_NOSIGNAL);
      ::close(c);
    }
  }
  int fd_ = -1;
  uint16_t port_ = 0;
  std::atomic<bool> stop_{false};
  std::mutex mx_;
  int status_ = 503;
  std::string body_ = "{\"error\":\"no catalogue\"}";
  std::string target_;
  std::thread thread_;
};

struct s3_archive_fixture {
  br::test::temp_dir tmp{"br-archive-s3"};
  br::test::s3_server s3{site_a};
  std::shared_ptr<br::storage::object_store> store;

  s3_archive_fixture() {
    s3.create_bucket("pitr");
    auto creds = (tmp.path / "creds").string();
    s3.write_credentials(creds);
    store = std::shared_ptr<br::storage::object_store>(br::storage::make_store(s3.config("pitr", "group-g", creds)));
    sandbox().reset(site_a);
    sandbox().reset(site_b);
    sandbox().replicate(site_b, site_a);  // a: writable source; b: fenced replica
  }
  ~s3_archive_fixture() {
    for (int i : {site_a, site_b})
      if (sandbox().running(i)) {
        auto r = sandbox().run({"stop", std::to_string(i)});
        if (r.exit_code != 0) BOOST_TEST_MESSAGE("stop " << i << ": " << r.err);
      }
  }

  br::sidecar::scan_options opts(int instance, const std::string& site) {
    br::sidecar::scan_options o;
    o.layout.site = site;
    o.store = store;
    o.storage_type = "S3";
    o.binlog_dir = sandbox().datadir(instance);
    o.index_name = "binlog.index";
    return o;
  }
  /// One scan as the sidecar runs it: the primary check is the real server's @@read_only.
  br::sidecar::scan_report scan(int instance, const std::string& site) {
    return br::sidecar::archive_scan(
        opts(instance, site),
        [instance]() -> std::optional<bool> { return sql(instance, "SELECT @@global.read_only") == "0"; },
        [] { return static_cast<int64_t>(std::time(nullptr)); });
  }
  br::binlog::manifest manifest(const std::string& site) {
    auto got = store->get_bytes("binlogs/manifest-" + site + ".json", 1 << 20);
    BOOST_REQUIRE_MESSAGE(got.ok(), (got.ok() ? std::string{} : got.error().message));
    auto parsed = br::binlog::parse_manifest(*got);
    BOOST_REQUIRE_MESSAGE(parsed.value.has_value(), parsed.error);
    return *parsed.value;
  }
  std::vector<std::string> objects(const std::string& site) {
    auto l = store->list("binlogs/" + site + "/");
    BOOST_REQUIRE(l.ok());
    std::vector<std::string> out;
    for (const auto& o : *l) out.push_back(o.key.substr(o.key.rfind('/') + 1));
    return out;
  }
  /// Writes and rotates `n` times on instance i, a second apart (distinct event times).
  void write_and_rotate(int i, int n, int first_row) {
    for (int k = 0; k < n; ++k) {
      sql(i, "INSERT INTO pitr.t VALUES (" + std::to_string(first_row + k) + ", REPEAT('x', 100))");
      sql(i, "FLUSH BINARY LOGS");
      std::this_thread::sleep_for(1100ms);
    }
  }
};

}  // namespace

BOOST_FIXTURE_TEST_SUITE(binlog_archiver_s3, s3_archive_fixture)

BOOST_AUTO_TEST_CASE(after_a_failover_the_new_primary_archives_and_retention_deletes_only_what_the_cutoff_allows) {
  sql(site_a, "CREATE DATABASE pitr; CREATE TABLE pitr.t (id INT PRIMARY KEY, v TEXT)");
  write_and_rotate(site_a, 3, 1);

  // -- a is the primary: it archives; b (read-only replica) uploads nothing ------------------------
  auto ra = scan(site_a, "a");
  BOOST_TEST_REQUIRE(ra.error.empty(), ra.error);
  BOOST_TEST(ra.primary);
  BOOST_TEST_REQUIRE(ra.archived.size() >= 3u);
  auto rb = scan(site_b, "b");
  BOOST_TEST(!rb.primary);
  BOOST_TEST(rb.archived.empty());
  BOOST_TEST(objects("b").empty());
  auto ma = manifest("a");
  BOOST_TEST(ma.files.size() == ra.archived.size());
  BOOST_TEST(objects("a").size() == ma.files.size());
  // The archived bytes are the server's bytes.
  for (const auto& e : ma.files) {
    auto dst = tmp.path / ("check-" + e.name);
    BOOST_TEST_REQUIRE(store->get_file(e.remote_path, dst).ok());
    BOOST_TEST(fs::file_size(dst) == fs::file_size(sandbox().datadir(site_a) + "/" + e.name));
    BOOST_TEST(e.remote_path == "binlogs/a/" + e.name);
  }

  // -- failover: a fenced, b promoted (b's channel removed, a replicates from b) -------------------
  sql(site_a, "SET GLOBAL super_read_only = ON");
  sandbox().replicate(site_a, site_b);
  BOOST_TEST_REQUIRE(sql(site_b, "SELECT @@global.read_only") == "0");
  BOOST_TEST_REQUIRE(sql(site_a, "SELECT @@global.read_only") == "1");
  write_and_rotate(site_b, 2, 100);
  sql(site_a, "FLUSH BINARY LOGS");  // a seals a file too (as a replica): it must not upload it

  auto ra2 = scan(site_a, "a");
  BOOST_TEST(!ra2.primary);
  BOOST_TEST(ra2.archived.empty());
  BOOST_TEST(manifest("a").files.size() == ma.files.size());
  auto rb2 = scan(site_b, "b");
  BOOST_TEST_REQUIRE(rb2.error.empty(), rb2.error);
  BOOST_TEST(rb2.primary);
  BOOST_TEST_REQUIRE(rb2.archived.size() >= 2u);
  auto mb = manifest("b");
  BOOST_TEST(mb.files.size() == rb2.archived.size());
  BOOST_TEST(objects("b").size() == mb.files.size());
  // b's archive ends with everything b executed (a's transactions included).
  BOOST_TEST(mb.files.back().end_gtids.find(':') != std::string::npos);

  // -- retention: no cutoff (503, then no Succeeded backup) deletes nothing ------------------------
  cutoff_stub op;
  auto oa = opts(site_a, "a");
  oa.retention.cutoff_url = op.url();
  auto none = br::sidecar::retention_sweep(oa);
  BOOST_TEST(none.deleted.empty());
  BOOST_TEST(none.note.find("503") != std::string::npos, none.note);
  BOOST_TEST(op.last_target().find("GET /pitr-cutoff?namespace=ns&group=g&profile=p") == 0u, op.last_target());
  op.answer(200, "{\"namespace\":\"ns\",\"group\":\"g\",\"profile\":\"p\"}");
  BOOST_TEST(br::sidecar::retention_sweep(oa).deleted.empty());
  BOOST_TEST(objects("a").size() == ma.files.size());

  // -- a cutoff just after a's second file's last event: exactly the files ending before it go -----
  auto cutoff_ms = br::config::parse_rfc3339(ma.files[1].last_event_time)->time_since_epoch().count() + 500;
  std::vector<std::string> expect_gone, expect_kept;
  for (const auto& e : ma.files)
    (br::config::parse_rfc3339(e.last_event_time)->time_since_epoch().count() < cutoff_ms ? expect_gone : expect_kept)
        .push_back(e.name);
  BOOST_TEST_REQUIRE(expect_gone.size() >= 2u);
  BOOST_TEST_REQUIRE(!expect_kept.empty());
  op.answer(200, "{\"namespace\":\"ns\",\"group\":\"g\",\"profile\":\"p\",\"cutoffTime\":\"" +
                     br::config::format_rfc3339(br::config::timestamp(std::chrono::milliseconds(cutoff_ms))) + "\"}");
  auto swept = br::sidecar::retention_sweep(oa);
  BOOST_TEST(swept.error.empty(), swept.error);
  BOOST_TEST(swept.deleted == expect_gone, boost::test_tools::per_element());
  auto ma2 = manifest("a");
  std::vector<std::string> kept;
  for (const auto& e : ma2.files) kept.push_back(e.name);
  BOOST_TEST(kept == expect_kept, boost::test_tools::per_element());
  BOOST_TEST(objects("a") == expect_kept, boost::test_tools::per_element());
  // Site b's archive is not a's sweep's business.
  BOOST_TEST(objects("b").size() == mb.files.size());
  BOOST_TEST(manifest("b").files.size() == mb.files.size());
  // A second sweep with the same cutoff deletes nothing more.
  BOOST_TEST(br::sidecar::retention_sweep(oa).deleted.empty());
  BOOST_TEST(objects("a") == expect_kept, boost::test_tools::per_element());
}

BOOST_AUTO_TEST_SUITE_END()
