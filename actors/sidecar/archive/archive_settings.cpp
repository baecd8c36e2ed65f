// Archiver options from the sidecar configuration (store, scan, retention).
#include "actors/sidecar/archive/archive_settings.hpp"

#include <algorithm>

#include "io/codec/url.hpp"
#include "io/storage/storage_config.hpp"

namespace br::sidecar {

namespace {
std::chrono::milliseconds to_ms(std::chrono::nanoseconds d) {
  return std::chrono::duration_cast<std::chrono::milliseconds>(d);
}
}  // namespace

std::string pitr_cutoff_url(const config::sidecar_config& cfg) {
  if (cfg.pitr.profile_name.empty() || !cfg.topology_aware()) return {};
  return std::string(cfg.api_tls.on() ? "https://" : "http://") + cfg.operator_address +
         "/pitr-cutoff?namespace=" + url_escape(cfg.pod_namespace) +
         "&group=" + url_escape(cfg.group) + "&profile=" + url_escape(cfg.pitr.profile_name);
}

archiver_settings_result archiver_settings(const config::sidecar_config& cfg) {
  archiver_settings_result out;
  const auto& env = cfg.pitr.storage_env;
  auto parsed = storage::parse_storage_config("BLOODRAVEN_PITR", [&env](const std::string& name) -> std::optional<std::string> {
    auto it = env.find(name);
    if (it == env.end() || it->second.empty()) return std::nullopt;
    return it->second;
  });
  if (!parsed.config) {
    out.error = parsed.error;
    return out;
  }
  archiver_options ao;
  ao.scan.layout.root = cfg.pitr.pvc_mount_path;
  ao.scan.layout.site = cfg.site;
  ao.scan.binlog_dir = cfg.pitr.binlog_dir;
  ao.scan.index_name = cfg.pitr.binlog_index;
  ao.scan.storage_type = parsed.config->type_name();
  ao.scan.store = std::shared_ptr<storage::object_store>(storage::make_store(*parsed.config));
  ao.scan.retention.cutoff_url = pitr_cutoff_url(cfg);
  ao.scan.retention.tls = cfg.api_tls;
  ao.scan.retention.request_timeout = std::max(to_ms(cfg.request_timeout), std::chrono::milliseconds(2000));
  ao.poll_interval = to_ms(cfg.pitr.poll_interval);
  ao.probe_timeout = std::min(to_ms(cfg.request_timeout), std::chrono::milliseconds(2000));
  ao.retention_interval = to_ms(cfg.pitr.retention_interval);
  ao.retention_first_delay = std::min(ao.retention_interval, std::chrono::milliseconds(30000));
  out.options = std::move(ao);
  return out;
}

}  // namespace br::sidecar
