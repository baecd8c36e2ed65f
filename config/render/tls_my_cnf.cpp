// spec.tls in Kubernetes mode (issue 26): the server's certificate files and the transport rule in
// the rendered my.cnf.
#include "config/render/tls_my_cnf.hpp"

namespace br::render {

bool is_tls_owned_option(const config::group_spec& spec, std::string_view k) {
  if (!spec.tls) return false;
  if (k.starts_with("loose-")) k.remove_prefix(6);
  return k == "ssl-ca" || k == "ssl-cert" || k == "ssl-key" || k == "require-secure-transport";
}

std::map<std::string, std::string> tls_my_cnf_options(const config::group_spec& spec) {
  if (!spec.tls) return {};
  return {
      {"ssl-ca", std::string{config::mysql_tls_ca_file}},
      {"ssl-cert", std::string{config::mysql_tls_cert_file}},
      {"ssl-key", std::string{config::mysql_tls_key_file}},
      {"require-secure-transport", spec.tls->require_secure_transport ? "ON" : "OFF"},
  };
}

}  // namespace br::render
