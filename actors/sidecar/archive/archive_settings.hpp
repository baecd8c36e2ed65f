// The archiver's options from the sidecar's configuration: the store (BLOODRAVEN_PITR_* through
// io/storage's parse_storage_config), the binlog index, the scan interval and the retention sweep
// (BLOODRAVEN_PITR_PROFILE_NAME + the operator address, namespace and group).
#pragma once

#include <string>

#include "actors/sidecar/archive/binlog_archiver.hpp"
#include "config/sidecar_config.hpp"

namespace br::sidecar {

struct archiver_settings_result {
  std::optional<archiver_options> options;
  std::string error;  ///< names the variable when options is empty
};

/// Builds the options (the store included). Only meaningful when cfg.pitr.enabled.
archiver_settings_result archiver_settings(const config::sidecar_config& cfg);

/// http://<operator>/pitr-cutoff?namespace=..&group=..&profile=.. ("" when retention is off).
std::string pitr_cutoff_url(const config::sidecar_config& cfg);

}  // namespace br::sidecar
