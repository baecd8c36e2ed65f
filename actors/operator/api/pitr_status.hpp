// PITR archive progress of a group, folded from the sidecars' reports (pure).
#pragma once

#include <map>
#include <string>

#include <nlohmann/json.hpp>

namespace br {

/// Checks the optional `archiver` object of a sidecar report (the sidecar's GET /archiver/status);
/// "" when fine, else what is wrong, with its field path.
std::string check_archiver_report(const nlohmann::json& archiver);

/// The group's `pitr` entry of GET /status from the last report of each site (site -> report):
/// null when no site reports an enabled archiver. Otherwise
/// `{enabled, archivingSite, archivedFileCount, archivedBytes, lastArchivedTime, backlogFiles,
///   uploadFailures, message, sites: {<site>: {primary, filesArchived, bytesArchived, backlogFiles,
///   uploadFailures, lastUploadTime, lastError}}}`.
/// Counts are sums over the sites since each sidecar started; lastArchivedTime is the newest
/// lastUploadTime (RFC 3339 strings compare in time order); backlogFiles is the archiving
/// (primary) site's. message names every site's lastError, or says that no primary archives.
nlohmann::json pitr_status_of(const std::map<std::string, nlohmann::json>& reports);

}  // namespace br
