// `bloodraven tls-certs` (see the header). Certificates from io/crypto/x509_issue.
#include "actors/operator/local/tls_certs_cli.hpp"

#include <sys/stat.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "actors/common/peer_identity.hpp"
#include "io/crypto/x509_inspect.hpp"
#include "io/crypto/x509_issue.hpp"

namespace br {

namespace {

constexpr const char* usage =
    "usage: bloodraven tls-certs DIR --namespace NS --group G [--host H]... SITE...\n"
    "  writes the certificates for the operator and sidecar APIs over mutual TLS (--tls-* flags):\n"
    "  DIR/ca.crt + ca.key (a new CA unless both exist; keep ca.key private), operator.crt/.key\n"
    "  (bloodraven://operator), site-<SITE>.crt/.key (bloodraven://site/NS/G/SITE) and router.pem\n"
    "  (certificate then key, bloodraven://router: the standalone router's checks). Each names the\n"
    "  hosts it is dialled at (--host, repeatable; default 127.0.0.1 and localhost). Certificates\n"
    "  are valid for 90 days; run it again to issue new ones from the same CA.\n";

constexpr std::chrono::hours validity{24 * 90};

std::string read_all(const std::filesystem::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

/// Writes through a temporary file and a rename (a reader sees the old or the new file, never
/// half of one); `private_file`: mode 0600.
bool write_file(const std::filesystem::path& p, const std::string& text, bool private_file) {
  const auto tmp = p.string() + ".tmp";
  {
    std::ofstream out(tmp, std::ios::binary | std::ios::trunc);
    if (!out) return false;
    out << text;
    if (!out.flush()) return false;
  }
  if (::chmod(tmp.c_str(), private_file ? 0600 : 0644) != 0) return false;
  std::error_code ec;
  std::filesystem::rename(tmp, p, ec);
  return !ec;
}

}  // namespace

int run_tls_certs_cli(int argc, char** argv) {
  std::string dir, ns, group;
  std::vector<std::string> hosts, sites;
  for (int i = 2; i < argc; ++i) {
    const std::string a = argv[i];
    if (a == "-h" || a == "--help") {
      std::fputs(usage, stdout);
      return 0;
    }
    if (a == "--namespace" || a == "--group" || a == "--host") {
      if (i + 1 >= argc) {
        std::fprintf(stderr, "bloodraven tls-certs: %s needs a value\n%s", a.c_str(), usage);
        return 2;
      }
      const std::string v = argv[++i];
      if (a == "--namespace") ns = v;
      else if (a == "--group") group = v;
      else hosts.push_back(v);
    } else if (a.rfind("--", 0) == 0) {
      std::fprintf(stderr, "bloodraven tls-certs: unknown option %s\n%s", a.c_str(), usage);
      return 2;
    } else if (dir.empty()) {
      dir = a;
    } else {
      sites.push_back(a);
    }
  }
  if (dir.empty() || ns.empty() || group.empty() || sites.empty()) {
    std::fputs(usage, stderr);
    return 2;
  }
  if (hosts.empty()) hosts = {"127.0.0.1", "localhost"};
  std::error_code ec;
  std::filesystem::create_directories(dir, ec);
  const std::filesystem::path d{dir};
  auto fail = [](const std::string& what) {
    std::fprintf(stderr, "bloodraven tls-certs: %s\n", what.c_str());
    return 1;
  };

  crypto::pem_pair ca;
  if (std::filesystem::exists(d / "ca.crt") && std::filesystem::exists(d / "ca.key")) {
    ca = {read_all(d / "ca.crt"), read_all(d / "ca.key")};
    auto info = crypto::inspect_cert(ca.cert_pem);
    if (!info || !info->is_ca || !crypto::key_matches(ca.cert_pem, ca.key_pem))
      return fail((d / "ca.crt").string() + " and ca.key are not a CA and its key");
  } else {
    auto made = crypto::make_ca("bloodraven API CA " + ns + "/" + group, std::chrono::hours{24 * 3650});
    if (!made) return fail("cannot make a CA");
    ca = *made;
    if (!write_file(d / "ca.key", ca.key_pem, true) || !write_file(d / "ca.crt", ca.cert_pem, false))
      return fail("cannot write the CA into " + dir);
  }
  auto issue = [&](const std::string& stem, const std::string& uri, bool combined) {
    auto names = hosts;
    names.push_back(uri);  // last: the first name is the common name (at most 64 characters)
    auto p = crypto::issue_peer_cert(ca, names, validity);
    if (!p) return false;
    if (combined) return write_file(d / (stem + ".pem"), p->cert_pem + p->key_pem, true);
    return write_file(d / (stem + ".key"), p->key_pem, true) &&
           write_file(d / (stem + ".crt"), p->cert_pem, false);
  };
  if (!issue("operator", std::string(auth::operator_identity_uri), false))
    return fail("cannot issue the operator's certificate");
  for (const auto& s : sites)
    if (!issue("site-" + s, auth::site_identity_uri(ns, group, s), false))
      return fail("cannot issue site " + s + "'s certificate");
  if (!issue("router", "bloodraven://router", true)) return fail("cannot issue the router's certificate");
  return 0;
}

}  // namespace br
