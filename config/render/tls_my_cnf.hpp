// spec.tls in Kubernetes mode (issue 26): the server's certificate files and the transport rule in
// the rendered my.cnf (docs/safety.md, TLS section).
#pragma once

#include <map>
#include <string>
#include <string_view>

#include "config/group_spec.hpp"

namespace br::render {

/// True when spec.tls is set and `normalized_key` is one it owns: ssl-ca, ssl-cert, ssl-key and
/// require-secure-transport (also with loose-). mysqlConf may not override them then.
bool is_tls_owned_option(const config::group_spec& spec, std::string_view normalized_key);

/// With spec.tls: ssl-ca/ssl-cert/ssl-key under /etc/mysql/tls/ (the Secret's ca.crt, tls.crt,
/// tls.key) and require-secure-transport ON or OFF per spec.tls.requireSecureTransport; else none.
std::map<std::string, std::string> tls_my_cnf_options(const config::group_spec& spec);

}  // namespace br::render
