// TLS flags of the sidecar and operator APIs (see the header).
#include "config/api_tls.hpp"

#include <tuple>

namespace br::config {

std::vector<flag_def> api_tls_flag_defs() {
  return {
      {"tls-cert-file", "BLOODRAVEN_TLS_CERT_FILE", "",
       "API over HTTPS: PEM certificate chain served and presented to other processes as the "
       "client certificate (re-read when it changes; empty: plain HTTP)",
       false, {}},
      {"tls-key-file", "BLOODRAVEN_TLS_KEY_FILE", "", "the PEM key of --tls-cert-file", false, {}},
      {"tls-ca-file", "BLOODRAVEN_TLS_CA_FILE", "",
       "PEM CA bundle the other processes' certificates are verified against (servers: CA and "
       "host name; clients: CA), re-read when it changes",
       false, {}},
      {"tls-client-auth", "BLOODRAVEN_TLS_CLIENT_AUTH", "require",
       "require: the API refuses a TLS handshake without a client certificate; request: it serves "
       "one without (probes), and the authority-carrying routes refuse it",
       false,
       [](const std::string& v) {
         return v == "require" || v == "request" ? std::string{}
                                                 : std::string("must be require or request");
       }},
  };
}

std::string read_api_tls(const std::map<std::string, std::string>& values, api_tls_settings& out) {
  auto v = [&](const char* k) {
    auto it = values.find(k);
    return it == values.end() ? std::string{} : it->second;
  };
  out.cert_file = v("tls-cert-file");
  out.key_file = v("tls-key-file");
  out.ca_file = v("tls-ca-file");
  out.require_client_cert = v("tls-client-auth") != "request";
  const bool any = !out.cert_file.empty() || !out.key_file.empty() || !out.ca_file.empty();
  if (!any) return {};
  for (const auto& [flag, env, value] :
       {std::tuple{"--tls-cert-file", "BLOODRAVEN_TLS_CERT_FILE", out.cert_file},
        std::tuple{"--tls-key-file", "BLOODRAVEN_TLS_KEY_FILE", out.key_file},
        std::tuple{"--tls-ca-file", "BLOODRAVEN_TLS_CA_FILE", out.ca_file}}) {
    if (value.empty())
      return std::string(flag) + " (" + env +
             "): required with the other TLS files (certificate, key and CA go together)";
  }
  return {};
}

}  // namespace br::config
