// The binlog archiver's settings in the sidecar (see pitr_sidecar.hpp).
#include "config/render/pitr_sidecar.hpp"

namespace br::render {

using nlohmann::json;

json storage_env(const config::backup_storage_spec& s, const std::string& prefix,
                 const std::string& pvc_mount, const std::string& s3_creds_dir) {
  json env = json::array();
  auto put = [&](const std::string& k, const std::string& v) {
    env.push_back({{"name", prefix + "_" + k}, {"value", v}});
  };
  put("STORAGE_TYPE", std::string{to_string(s.type)});
  if (s.type == config::backup_storage_type::s3 && s.s3) {
    put("S3_BUCKET", s.s3->bucket);
    put("S3_PREFIX", s.s3->prefix);
    put("S3_REGION", s.s3->region.empty() ? "us-east-1" : s.s3->region);
    if (!s.s3->endpoint_url.empty()) put("S3_ENDPOINT", s.s3->endpoint_url);
    put("S3_FORCE_PATH_STYLE", s.s3->force_path_style ? "true" : "false");
    put("S3_CREDENTIALS_DIR", s3_creds_dir);
  } else if (s.type == config::backup_storage_type::pvc && s.pvc) {
    put("PVC_MOUNT_PATH", pvc_mount);
  }
  return env;
}

const config::backup_profile_spec* pitr_profile(const config::group_spec& spec) {
  if (!spec.backup || !spec.backup->pitr.enabled) return nullptr;
  return config::find_profile(*spec.backup, spec.backup->pitr.profile_name);
}

void add_pitr_archiver(const config::group_spec& spec, json& pod_spec, json& sidecar) {
  const auto* p = pitr_profile(spec);
  if (!p) return;
  const auto& pitr = spec.backup->pitr;
  auto value = [](const std::string& k, const std::string& v) { return json{{"name", k}, {"value", v}}; };
  sidecar["env"].push_back(value("BLOODRAVEN_PITR_ENABLED", "true"));
  sidecar["env"].push_back(value("BLOODRAVEN_PITR_PROFILE_NAME", p->name));
  // MySQL's default binlog base name in the datadir (the rendered my.cnf sets no log-bin name).
  sidecar["env"].push_back(value("BLOODRAVEN_PITR_BINLOG_INDEX", "binlog.index"));
  sidecar["env"].push_back(
      value("BLOODRAVEN_PITR_POLL_INTERVAL", config::format_duration(pitr.archive_poll_interval)));
  for (auto& e : storage_env(p->storage, "BLOODRAVEN_PITR", pitr_pvc_mount, pitr_s3_creds_dir))
    sidecar["env"].push_back(std::move(e));
  if (p->storage.type == config::backup_storage_type::s3 && p->storage.s3) {
    pod_spec["volumes"].push_back(
        {{"name", pitr_volume},
         {"secret", {{"secretName", p->storage.s3->credentials_secret}, {"defaultMode", 0440}}}});
    sidecar["volumeMounts"].push_back(
        {{"name", pitr_volume}, {"mountPath", pitr_s3_creds_dir}, {"readOnly", true}});
  } else if (p->storage.type == config::backup_storage_type::pvc && p->storage.pvc) {
    pod_spec["volumes"].push_back(
        {{"name", pitr_volume},
         {"persistentVolumeClaim", {{"claimName", p->storage.pvc->claim_name}}}});
    json mount = {{"name", pitr_volume}, {"mountPath", pitr_pvc_mount}};
    if (!p->storage.pvc->sub_path.empty()) mount["subPath"] = p->storage.pvc->sub_path;
    sidecar["volumeMounts"].push_back(std::move(mount));
  }
}

std::optional<std::int64_t> pitr_max_binlog_size(const config::group_spec& spec) {
  if (!pitr_profile(spec)) return std::nullopt;
  return config::parse_binlog_size(spec.backup->pitr.max_binlog_size);
}

}  // namespace br::render
