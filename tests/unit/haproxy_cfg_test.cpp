// Standalone router rendering (config/render/haproxy_cfg): frontends, checks, servers and errors.
#include <boost/test/unit_test.hpp>

#include <map>
#include <sstream>
#include <string>
#include <vector>

#include "config/failover_group.hpp"
#include "config/render/haproxy_cfg.hpp"

using br::render::haproxy_options;
using br::render::render_haproxy_cfg;

namespace {

struct site_row {
  std::string name;
  std::string role;  // primary-candidate | dr-only | read-only
  std::string host;
  int port;
  std::string sidecar;  // "" = no sidecarAddress
};

br::config::failover_group group_of(const std::vector<site_row>& sites, bool validate = true) {
  std::string y =
      "metadata: {name: demo, namespace: play}\n"
      "spec:\n"
      "  replication: {user: repl, password: replpw}\n"
      "  sites:\n";
  for (const auto& s : sites) {
    y += "    - {name: " + s.name + ", role: " + s.role + ", address: {host: \"" + s.host +
         "\", port: " + std::to_string(s.port) + "}";
    if (!s.sidecar.empty()) y += ", sidecarAddress: \"" + s.sidecar + "\"";
    y += "}\n";
  }
  auto r = validate ? br::config::load_group_yaml(y, br::config::run_mode::standalone)
                    : br::config::parse_group_yaml(y);
  BOOST_TEST_REQUIRE(r.ok(), br::config::to_string(r.errors));
  return r.group;
}

/// haproxy.cfg as section header -> its indented lines (trimmed), comments dropped.
std::map<std::string, std::vector<std::string>> sections(const std::string& text) {
  std::map<std::string, std::vector<std::string>> out;
  std::istringstream in(text);
  std::string line, current;
  while (std::getline(in, line)) {
    if (line.empty() || line[0] == '#') continue;
    if (line[0] != ' ') {
      current = line;
      out[current];
    } else {
      out[current].push_back(line.substr(line.find_first_not_of(' ')));
    }
  }
  return out;
}

std::vector<std::string> servers(const std::vector<std::string>& lines) {
  std::vector<std::string> out;
  for (const auto& l : lines)
    if (l.rfind("server ", 0) == 0) out.push_back(l);
  return out;
}

bool has(const std::vector<std::string>& lines, const std::string& want) {
  for (const auto& l : lines)
    if (l == want) return true;
  return false;
}

haproxy_options ports(int p, int r, int s = 0) {
  haproxy_options o;
  o.primary_port = p;
  o.replicas_port = r;
  o.stats_port = s;
  return o;
}

}  // namespace

BOOST_AUTO_TEST_SUITE(render_haproxy)

BOOST_AUTO_TEST_CASE(group_replication_checks_the_members_own_state) {
  auto g = group_of({{"a", "primary-candidate", "10.0.0.1", 3306, "10.0.0.1:8080"},
                     {"b", "primary-candidate", "10.0.0.2", 3306, "10.0.0.2:8080"},
                     {"c", "primary-candidate", "10.0.0.3", 3306, "10.0.0.3:8080"}},
                    /*validate=*/false);
  g.spec.replication.mode = br::config::replication_mode::group_replication;
  auto missing = render_haproxy_cfg(g, ports(3306, 3307));
  BOOST_TEST_REQUIRE(!missing.ok());
  BOOST_TEST(missing.errors[0].path == "router.readersPort");
  auto o = ports(3306, 3307);
  o.readers_port = 3308;
  auto r = render_haproxy_cfg(g, o);
  BOOST_TEST_REQUIRE(r.ok(), br::config::to_string(r.errors));
  auto sec = sections(r.text);
  BOOST_TEST(has(sec["backend primary"], "http-check send meth GET uri /gr/primary"));
  BOOST_TEST(has(sec["backend replicas"], "http-check send meth GET uri /gr/replica"));
  BOOST_TEST(has(sec["backend readers"], "http-check send meth GET uri /gr/reader"));
  BOOST_TEST(has(sec["frontend readers"], "bind 127.0.0.1:3308"));
  BOOST_TEST(servers(sec["backend readers"]).size() == 3u);
  // An async group renders no readers frontend and keeps its checks.
  g.spec.replication.mode = br::config::replication_mode::async;
  auto a = sections(render_haproxy_cfg(g, o).text);
  BOOST_TEST(a.count("frontend readers") == 0u);
  BOOST_TEST(has(a["backend primary"], "http-check send meth GET uri /primary"));
}

BOOST_AUTO_TEST_CASE(servers_follow_sites_and_their_sidecars) {
  struct row {
    std::vector<site_row> sites;
    std::vector<std::string> primary;  // expected server lines of backend primary
    std::vector<std::string> replicas;
  };
  const std::vector<row> rows = {
      {{{"s1", "primary-candidate", "127.0.0.1", 3301, "127.0.0.1:8101"},
        {"s2", "primary-candidate", "127.0.0.1", 3302, "127.0.0.1:8102"}},
       {"server s1 127.0.0.1:3301 check addr 127.0.0.1 port 8101",
        "server s2 127.0.0.1:3302 check addr 127.0.0.1 port 8102"},
       {"server s1 127.0.0.1:3301 check addr 127.0.0.1 port 8101",
        "server s2 127.0.0.1:3302 check addr 127.0.0.1 port 8102"}},
      // A read-only site can never be writable: replicas only. dr-only can be promoted.
      {{{"iad", "primary-candidate", "10.0.0.1", 3306, "10.0.0.1:8080"},
        {"pdx", "dr-only", "10.0.0.2", 3307, "10.0.0.12:9090"},
        {"sea", "read-only", "10.0.0.3", 3306, "10.0.0.3:8080"},
        {"lax", "primary-candidate", "10.0.0.4", 3306, "10.0.0.4:8080"}},
       {"server iad 10.0.0.1:3306 check addr 10.0.0.1 port 8080",
        "server pdx 10.0.0.2:3307 check addr 10.0.0.12 port 9090",
        "server lax 10.0.0.4:3306 check addr 10.0.0.4 port 8080"},
       {"server iad 10.0.0.1:3306 check addr 10.0.0.1 port 8080",
        "server pdx 10.0.0.2:3307 check addr 10.0.0.12 port 9090",
        "server sea 10.0.0.3:3306 check addr 10.0.0.3 port 8080",
        "server lax 10.0.0.4:3306 check addr 10.0.0.4 port 8080"}},
      // IPv6 literals are bracketed in server addresses only.
      {{{"a", "primary-candidate", "::1", 3310, "[::1]:8110"},
        {"b", "primary-candidate", "::1", 3311, "[::1]:8111"}},
       {"server a [::1]:3310 check addr ::1 port 8110", "server b [::1]:3311 check addr ::1 port 8111"},
       {"server a [::1]:3310 check addr ::1 port 8110",
        "server b [::1]:3311 check addr ::1 port 8111"}},
  };
  for (const auto& r : rows) {
    BOOST_TEST_CONTEXT(r.sites.front().name) {
      auto res = render_haproxy_cfg(group_of(r.sites), ports(4000, 4001));
      BOOST_TEST_REQUIRE(res.ok(), br::config::to_string(res.errors));
      auto sec = sections(res.text);
      BOOST_TEST(servers(sec["backend primary"]) == r.primary, res.text);
      BOOST_TEST(servers(sec["backend replicas"]) == r.replicas, res.text);
    }
  }
}

BOOST_AUTO_TEST_CASE(frontends_checks_and_cadence) {
  auto o = ports(4100, 4101, 4102);
  o.check_interval = std::chrono::milliseconds{250};
  o.fall = 2;
  o.rise = 3;
  auto res = render_haproxy_cfg(
      group_of({{"s1", "primary-candidate", "127.0.0.1", 3301, "127.0.0.1:8101"},
                {"s2", "primary-candidate", "127.0.0.1", 3302, "127.0.0.1:8102"}}),
      o);
  BOOST_TEST_REQUIRE(res.ok(), br::config::to_string(res.errors));
  auto sec = sections(res.text);
  BOOST_TEST(has(sec["frontend primary"], "bind 127.0.0.1:4100"), res.text);
  BOOST_TEST(has(sec["frontend primary"], "default_backend primary"));
  BOOST_TEST(has(sec["frontend replicas"], "bind 127.0.0.1:4101"), res.text);
  BOOST_TEST(has(sec["frontend replicas"], "default_backend replicas"));
  BOOST_TEST(has(sec["frontend stats"], "bind 127.0.0.1:4102"), res.text);
  BOOST_TEST(has(sec["defaults"], "mode tcp"));
  BOOST_TEST(has(sec["defaults"],
                 "default-server inter 250ms fastinter 250ms downinter 250ms fall 2 rise 3 "
                 "on-marked-down shutdown-sessions"),
             res.text);
  BOOST_TEST(has(sec["backend primary"], "http-check send meth GET uri /primary"), res.text);
  BOOST_TEST(has(sec["backend replicas"], "http-check send meth GET uri /replica"), res.text);
  for (const char* b : {"backend primary", "backend replicas"}) {
    BOOST_TEST(has(sec[b], "option httpchk"), b);
    BOOST_TEST(has(sec[b], "http-check expect status 200"), b);
  }
  BOOST_TEST(has(sec["backend primary"], "balance first"));
  BOOST_TEST(has(sec["backend replicas"], "balance roundrobin"));

  // No stats port: no stats frontend.
  auto plain = render_haproxy_cfg(
      group_of({{"s1", "primary-candidate", "127.0.0.1", 3301, "127.0.0.1:8101"},
                {"s2", "primary-candidate", "127.0.0.1", 3302, "127.0.0.1:8102"}}),
      ports(4100, 4101));
  BOOST_TEST_REQUIRE(plain.ok());
  BOOST_TEST(sections(plain.text).count("frontend stats") == 0u, plain.text);
}

BOOST_AUTO_TEST_CASE(checks_over_tls_when_the_sidecars_serve_tls) {
  auto g = group_of({{"s1", "primary-candidate", "127.0.0.1", 3301, "127.0.0.1:8101"},
                     {"s2", "primary-candidate", "127.0.0.1", 3302, "127.0.0.1:8102"},
                     {"s3", "read-only", "127.0.0.1", 3303, "127.0.0.1:8103"}});
  auto o = ports(4000, 4001);
  o.check_ca_file = "/pki/ca.crt";
  o.check_crt = "/pki/haproxy.pem";
  auto res = render_haproxy_cfg(g, o);
  BOOST_TEST_REQUIRE(res.ok(), br::config::to_string(res.errors));
  auto sec = sections(res.text);
  const std::string tls = " check-ssl verify required ca-file /pki/ca.crt crt /pki/haproxy.pem";
  BOOST_TEST(servers(sec["backend primary"]) ==
             (std::vector<std::string>{"server s1 127.0.0.1:3301 check addr 127.0.0.1 port 8101" + tls,
                                       "server s2 127.0.0.1:3302 check addr 127.0.0.1 port 8102" + tls}));
  BOOST_TEST(servers(sec["backend replicas"]).back() ==
             "server s3 127.0.0.1:3303 check addr 127.0.0.1 port 8103" + tls);
  // Without a client certificate (sidecars with --tls-client-auth request): CA only.
  o.check_crt.clear();
  BOOST_TEST(servers(sections(render_haproxy_cfg(g, o).text)["backend primary"]).front() ==
             "server s1 127.0.0.1:3301 check addr 127.0.0.1 port 8101 check-ssl verify required "
             "ca-file /pki/ca.crt");
  // A certificate without the CA to verify the sidecars is refused.
  o.check_ca_file.clear();
  o.check_crt = "/pki/haproxy.pem";
  auto bad = render_haproxy_cfg(g, o);
  BOOST_TEST_REQUIRE(!bad.ok());
  BOOST_TEST(bad.errors.front().path == "router.checkCrt");
}

BOOST_AUTO_TEST_CASE(every_problem_is_reported_with_its_path) {
  struct row {
    std::vector<site_row> sites;
    haproxy_options opts;
    std::vector<std::string> paths;  // expected error paths, in order
  };
  const site_row good1{"s1", "primary-candidate", "127.0.0.1", 3301, "127.0.0.1:8101"};
  const site_row good2{"s2", "primary-candidate", "127.0.0.1", 3302, "127.0.0.1:8102"};
  const site_row no_sidecar{"s2", "primary-candidate", "127.0.0.1", 3302, ""};
  const site_row bad_sidecar{"s2", "primary-candidate", "127.0.0.1", 3302, "nohostport"};
  const std::vector<row> rows = {
      {{good1, good2}, ports(4000, 4001), {}},
      {{good1, no_sidecar}, ports(4000, 4001), {"spec.sites[1].sidecarAddress"}},
      {{bad_sidecar, good1}, ports(4000, 4001), {"spec.sites[0].sidecarAddress"}},
      {{good1, good2}, ports(0, 70000, -1),
       {"router.primaryPort", "router.replicasPort", "router.statsPort"}},
  };
  for (std::size_t i = 0; i < rows.size(); ++i) {
    BOOST_TEST_CONTEXT("row " << i) {
      auto res = render_haproxy_cfg(group_of(rows[i].sites, false), rows[i].opts);
      std::vector<std::string> got;
      for (const auto& e : res.errors) got.push_back(e.path);
      BOOST_TEST(got == rows[i].paths, br::config::to_string(res.errors));
      BOOST_TEST(res.text.empty() == !rows[i].paths.empty());
    }
  }
}

BOOST_AUTO_TEST_CASE(a_site_without_address_is_an_error) {
  auto g = group_of({{"s1", "primary-candidate", "127.0.0.1", 3301, "127.0.0.1:8101"},
                     {"s2", "primary-candidate", "127.0.0.1", 3302, "127.0.0.1:8102"}});
  g.spec.sites[0].address.reset();
  auto res = render_haproxy_cfg(g, ports(4000, 4001));
  BOOST_TEST_REQUIRE(res.errors.size() == 1u);
  BOOST_TEST(res.errors[0].path == "spec.sites[0].address");
}

BOOST_AUTO_TEST_CASE(the_cache_frontend_follows_the_managers_check_user) {
  auto g = group_of({{"s1", "primary-candidate", "127.0.0.1", 3301, "127.0.0.1:8101"},
                     {"s2", "primary-candidate", "127.0.0.1", 3302, "127.0.0.1:8102"}},
                    /*validate=*/false);
  g.spec.dragonfly.enabled = true;
  g.spec.sites[0].dragonfly_address = "127.0.0.1:6401";
  auto missing = render_haproxy_cfg(g, ports(4000, 4001));
  std::vector<std::string> paths;
  for (const auto& e : missing.errors) paths.push_back(e.path);
  BOOST_TEST(paths == (std::vector<std::string>{"router.cachePort", "spec.sites[1].dragonflyAddress"}),
             br::config::to_string(missing.errors));
  g.spec.sites[1].dragonfly_address = "127.0.0.1:6402";
  auto o = ports(4000, 4001);
  o.cache_port = 4003;
  auto r = render_haproxy_cfg(g, o);
  BOOST_TEST_REQUIRE(r.ok(), br::config::to_string(r.errors));
  auto sec = sections(r.text);
  BOOST_TEST(has(sec["frontend cache"], "bind 127.0.0.1:4003"), r.text);
  BOOST_TEST(has(sec["backend cache"], "balance first"));
  BOOST_TEST(has(sec["backend cache"], "tcp-check send \"AUTH bloodraven-traffic check\\r\\n\""), r.text);
  BOOST_TEST(has(sec["backend cache"], "tcp-check send \"ROLE\\r\\n\""), r.text);
  BOOST_TEST(servers(sec["backend cache"]) ==
                 (std::vector<std::string>{"server s1 127.0.0.1:6401 check", "server s2 127.0.0.1:6402 check"}),
             r.text);
  g.spec.dragonfly.enabled = false;  // no cache frontend without Dragonfly
  BOOST_TEST(sections(render_haproxy_cfg(g, o).text).count("frontend cache") == 0u);
}

BOOST_AUTO_TEST_SUITE_END()
