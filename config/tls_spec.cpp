// spec.tls: reading, canonical JSON and the per-mode validation rules.
#include "config/tls_spec.hpp"

#include "config/group_spec.hpp"
#include "config/group_validate.hpp"
#include "config/json_reader.hpp"

namespace br::config {

std::string_view to_string(issuer_kind k) {
  return k == issuer_kind::cluster_issuer ? "ClusterIssuer" : "Issuer";
}

std::string effective_tls_secret_name(const tls_spec& tls, std::string_view group) {
  if (!tls.secret_name.empty()) return tls.secret_name;
  return std::string{group} + "-tls";
}

std::string effective_mysql_ca_file(const tls_spec& tls) {
  return tls.mysql_ca_file.empty() ? std::string{mysql_tls_ca_file} : tls.mysql_ca_file;
}

// Found by the json_reader templates through argument-dependent lookup, so not in a local namespace.
void read(const json& v, const std::string& path, issuer_kind& out, field_errors& errs) {
  read_enum(v, path, out,
            {{"Issuer", issuer_kind::issuer}, {"ClusterIssuer", issuer_kind::cluster_issuer}},
            errs);
}

void read(const json& v, const std::string& path, tls_issuer_ref& out, field_errors& errs) {
  json_reader r{v, path, errs};
  r.field("name", out.name).field("kind", out.kind).done();
}

namespace {

void put(json& j, const char* key, const std::string& s) {
  if (!s.empty()) j[key] = s;
}

}  // namespace

void read(const json& v, const std::string& path, tls_spec& out, field_errors& errs) {
  json_reader r{v, path, errs};
  r.field("issuerRef", out.issuer_ref)
      .field("secretName", out.secret_name)
      .field("requireSecureTransport", out.require_secure_transport)
      .field("caFile", out.ca_file)
      .field("certFile", out.cert_file)
      .field("keyFile", out.key_file)
      .field("mysqlCaFile", out.mysql_ca_file)
      .done();
}

json to_json(const tls_spec& t) {
  json j = {{"requireSecureTransport", t.require_secure_transport}};
  if (t.issuer_ref)
    j["issuerRef"] = {{"name", t.issuer_ref->name},
                      {"kind", std::string{to_string(t.issuer_ref->kind)}}};
  put(j, "secretName", t.secret_name);
  put(j, "caFile", t.ca_file);
  put(j, "certFile", t.cert_file);
  put(j, "keyFile", t.key_file);
  put(j, "mysqlCaFile", t.mysql_ca_file);
  return j;
}

void validate_tls(const tls_spec& t, run_mode mode, const std::string& path, field_errors& errs) {
  auto fail = [&](const char* field, std::string message) {
    errs.push_back({path + "." + field, std::move(message)});
  };
  auto absolute = [&](const char* field, const std::string& file) {
    if (!file.empty() && file.front() != '/')
      fail(field, "must be an absolute path, got \"" + file + "\"");
  };
  if (mode == run_mode::kubernetes) {
    const char* standalone_only = "standalone mode only (Kubernetes mode takes the files from "
                                  "the Secret secretName); remove it";
    if (!t.ca_file.empty()) fail("caFile", standalone_only);
    if (!t.cert_file.empty()) fail("certFile", standalone_only);
    if (!t.key_file.empty()) fail("keyFile", standalone_only);
    if (!t.mysql_ca_file.empty())
      fail("mysqlCaFile", "standalone mode only (the pods mount the CA at " +
                              std::string{mysql_tls_ca_file} + "); remove it");
    if (t.issuer_ref && t.issuer_ref->name.empty()) fail("issuerRef.name", "required");
    if (!t.secret_name.empty() && !is_dns_label_or_subdomain(t.secret_name))
      fail("secretName", "invalid Secret name \"" + t.secret_name +
                             "\": use lowercase letters, digits, '-' and '.'");
    return;
  }
  const char* kube_only = "Kubernetes mode only; in standalone mode name the files (caFile, "
                          "certFile, keyFile, mysqlCaFile); remove it";
  if (t.issuer_ref) fail("issuerRef", kube_only);
  if (!t.secret_name.empty()) fail("secretName", kube_only);
  if (t.ca_file.empty())
    fail("caFile", "required in standalone mode (the CA the MySQL servers' certificates are "
                   "verified against)");
  if (t.cert_file.empty() != t.key_file.empty())
    fail(t.cert_file.empty() ? "certFile" : "keyFile",
         "certFile and keyFile go together (the operator's client certificate); give both or "
         "neither");
  absolute("caFile", t.ca_file);
  absolute("certFile", t.cert_file);
  absolute("keyFile", t.key_file);
  absolute("mysqlCaFile", t.mysql_ca_file);
}

}  // namespace br::config
